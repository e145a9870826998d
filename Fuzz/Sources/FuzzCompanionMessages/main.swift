import AppleTV
import PhotonCore
import PhotonHAP

// Apple TV Companion input: frames (whole and split), OPACK values, TLV8 pairing items.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    // OPACK: what decodes re-encodes to something that decodes to the same value.
    if let value = try? OPACK.decode(bytes) {
        guard let again = try? OPACK.decode(value.encoded) else { preconditionFailure("an encoded value does not decode") }
        precondition(again == value, "OPACK round trip changed \(value)")
    }
    // TLV8: items survive encoding and decoding.
    if let tlv = try? TLV8.decode(bytes) {
        precondition((try? TLV8.decode(tlv.encoded)) == tlv, "TLV8 round trip changed the items")
    }
    // Frames, split in two at every tenth offset: the same frames, each within the limit.
    var whole = CompanionFrameDecoder(maximumPayload: 4096)
    whole.append(bytes)
    var frames: [[UInt8]] = []
    while let next = try? whole.next() {
        precondition(next.payload.count <= 4096, "a frame over the limit")
        frames.append(next.header + next.payload)
    }
    for split in stride(from: 0, through: bytes.count, by: max(1, bytes.count / 10)) {
        var pieces = CompanionFrameDecoder(maximumPayload: 4096)
        var seen: [[UInt8]] = []
        pieces.append(Array(bytes[..<split]))
        while let next = try? pieces.next() { seen.append(next.header + next.payload) }
        pieces.append(Array(bytes[split...]))
        while let next = try? pieces.next() { seen.append(next.header + next.payload) }
        precondition(seen == frames, "split feeding changed the frames")
    }
    return 0
}
