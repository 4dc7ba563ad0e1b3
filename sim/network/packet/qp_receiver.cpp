#include "sim/network/packet/qp_receiver.h"

namespace collsim {

QpReceiver::Reply QpReceiver::onPacket(const Packet& p, Time now, const ReceiverSettings& s) {
  Reply r;
  if (p.ecn && s.sendCnps && (lastCnp < 0 || now - lastCnp >= s.cnpInterval)) {
    lastCnp = now;
    r.cnp = true;
  }
  auto answer = [&](Control kind, std::uint32_t seq) {
    r.answer = true;
    r.kind = kind;
    r.seq = seq;
  };
  if (p.seq > expected) { // a gap: something was dropped
    if (!nackOutstanding) {
      nackOutstanding = true;
      answer(Control::Nack, expected);
    }
    return r;
  }
  if (p.seq < expected) { // a duplicate after going back: tell the sender how far we are
    if (s.roce && lastAckSent != expected) {
      lastAckSent = expected;
      answer(Control::Ack, expected);
    }
    return r;
  }
  ++expected;
  nackOutstanding = false;
  delivered += p.payload;
  r.partDone = p.lastOfPart;
  // A throttled QP must not wait long for its ACKs: acknowledge after a quiet spell too.
  if (r.partDone || ++sinceAck >= s.ackEvery || now - lastAckAt >= s.ackInterval) {
    sinceAck = 0;
    lastAckSent = expected;
    lastAckAt = now;
    if (s.roce) answer(Control::Ack, expected);
  }
  return r;
}

} // namespace collsim
