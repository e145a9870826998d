import PhotonCore
import PhotonNet
import PhotonService

// Request heads as the HTTP door, the emulators and test servers read them: the head, the
// door's request rules, Host and Origin checks, tokens, the request line and query.
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
    // The HTTP door's checks: each either passes or refuses with a status it can send.
    do {
        let checked = try HTTPRequestRules.check(head, maximumBody: 16 * 1024)
        precondition(checked.contentLength <= 16 * 1024, "a body over the limit was accepted")
        precondition(checked.target.hasPrefix("/"), "a target that is not a path was accepted")
    } catch {
        precondition((400...599).contains(error.status), "a refusal without an error status")
    }
    let policy = HTTPOriginPolicy(hosts: ["127.0.0.1", "localhost"], port: 8080, secure: false)
    if (try? policy.checkHost(head["Host"])) != nil {
        _ = try? policy.checkOrigin(head["Origin"], host: head["Host"]!, bearer: head["Authorization"] != nil)
    }
    _ = PresentedToken.from(authorization: head["Authorization"], cookies: head.headers.filter { $0.name.lowercased() == "cookie" }.map(\.value))
    // What was parsed serialises and parses back to the same head.
    if let again = try? HTTPHead.parse(head.bytes.dropLast(2)[...]) {
        precondition(again.startLine == head.startLine, "the start line changed in a round trip")
    }
    return 0
}
