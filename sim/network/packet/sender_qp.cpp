#include "sim/network/packet/sender_qp.h"

#include <algorithm>

namespace collsim {

void SenderQp::addPart(std::uint32_t message, Bytes bytes, Bytes mtu) {
  auto n = std::uint32_t(std::max<Bytes>(1, (bytes + mtu - 1) / mtu));
  parts.push_back({message, bytes, endSeq, endSeq + n});
  endSeq += n;
}

Packet SenderQp::nextPacket(std::uint32_t self, Bytes mtu) {
  std::uint32_t seq = nextSeq++;
  auto part = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.endSeq > seq; });
  std::uint32_t index = seq - part->firstSeq;
  bool last = seq + 1 == part->endSeq;
  Bytes payload = last ? part->bytes - Bytes(index) * mtu : mtu;
  Packet p{self, seq, std::uint32_t(payload), part->message, 0, 0, kNoIndex, index == 0, last, false};
  // Without ACKs (HCCS, PCIe: lossless, nothing is resent) a part is done with once sent.
  if (!roce && last) parts.erase(part);
  if (seq >= sentHigh) sentHigh = seq + 1;
  return p;
}

void SenderQp::onAck(std::uint32_t seq) {
  if (seq <= ackedSeq) return;
  ackedSeq = seq;
  ++progress;
  if (nextSeq < seq) nextSeq = seq; // went back too far: the receiver has these
  while (!parts.empty() && parts.front().endSeq <= seq) parts.pop_front();
}

bool SenderQp::goBack(std::uint32_t seq) {
  if (seq >= nextSeq) return false;
  nextSeq = seq;
  return true;
}

void SenderQp::paceAfter(Bytes wire, Time now) {
  rate.onSent(wire);
  lastSentAt = now;
  lastWire = wire;
  repace();
}

void SenderQp::repace() {
  nextSendAt = rate.limited() ? lastSentAt + Time(double(lastWire) / rate.rate() * double(kPsPerSec)) : lastSentAt;
}

} // namespace collsim
