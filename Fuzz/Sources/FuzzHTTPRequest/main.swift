import PhotonCore
import PhotonNet

// Request heads as the emulators and test servers read them: head, request line, query.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let head = try? HTTPHead.parse(bytes[...]) else { return 0 }
    if let (_, target) = head.requestLine {
        _ = HTTPServerRequest.queryParameters(of: target)
        _ = WebSocketClient.redactedTarget(target)
    }
    _ = head.statusCode
    _ = try? HTTPBodyFraming.of(response: head, status: 200, maxBody: 1 << 20)
    _ = head.header("Connection", contains: "upgrade")
    // What was parsed serialises and parses back to the same head.
    if let again = try? HTTPHead.parse(head.bytes.dropLast(2)[...]) {
        precondition(again.startLine == head.startLine, "the start line changed in a round trip")
    }
    return 0
}
