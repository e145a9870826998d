import AndroidTV
import PhotonCore

// Android TV's transport: varint framing, then each message decoded as a Polo (pairing)
// and a remote message; what decodes re-encodes and decodes to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    let step = Int(first % 64) + 1
    let input = Array(bytes.dropFirst())
    var decoder = VarintFrameDecoder(maxMessageSize: 4096)
    var messages: [[UInt8]] = [input]
    var offset = 0
    loop: while offset < input.count {
        decoder.append(Array(input[offset..<min(offset + step, input.count)]))
        offset += step
        while true {
            let message: [UInt8]?
            do { message = try decoder.next() } catch { break loop }
            guard let message else { break }
            precondition(message.count <= 4096, "a message over the limit")
            messages.append(message)
        }
    }
    for message in messages {
        if let polo = try? PoloMessage.decode(message) {
            let again = try? PoloMessage.decode(polo.encoded())
            precondition(again == polo, "a Polo message does not survive re-encoding")
        }
        if let remote = try? RemoteMessage.decode(message) {
            let again = try? RemoteMessage.decode(remote.encoded())
            precondition(again == remote, "a remote message does not survive re-encoding")
        }
    }
    return 0
}
