import PhotonCore
import PhotonNet

// WebSocket frames as a client and as a server parse them, in input-sized pieces, with
// control-frame rules (close codes, UTF-8 reasons); every frame re-encodes to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard bytes.count >= 2 else { return 0 }
    let role: WebSocketFrameParser.Role = bytes[0] & 1 == 0 ? .client : .server
    let step = Int(bytes[1] % 32) + 1
    let input = Array(bytes.dropFirst(2))
    var parser = WebSocketFrameParser(role: role, maxPayload: 1024)
    var offset = 0
    loop: while offset < input.count {
        parser.append(Array(input[offset..<min(offset + step, input.count)]))
        offset += step
        while true {
            let frame: WebSocketFrame?
            do { frame = try parser.next() } catch { break loop }
            guard let frame else { break }
            precondition(frame.payload.count <= 1024, "a payload over the limit")
            if frame.opcode == .close, frame.payload.count >= 2 {
                _ = WebSocketFrame.isValidCloseCode(UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]))
                _ = String(validating: frame.payload.dropFirst(2), as: UTF8.self)
            }
            // Round trip: a server frame re-encoded unmasked parses back identically.
            var check = WebSocketFrameParser(role: .client, maxPayload: 1024)
            check.append(frame.encoded(maskingKey: nil))
            let again = try? check.next()
            precondition(again == frame, "a frame does not survive re-encoding")
        }
    }
    return 0
}
