import Foundation
import PhotonCore
import PhotonJSON
import PhotonKit

// One request line of the daemon's socket API, read as the daemon reads it: JSON with
// depth 8, the command object, ids, sequence numbers and times.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let request = try? JSONValue.parse(bytes, maximumDepth: 8), request.isObject else { return 0 }
    _ = request["op"]?.stringValue
    _ = request["protocol"]?.intValue
    _ = request["seq"]?.intValue.map { $0 >= 0 ? UInt64($0) : 0 }
    _ = request["commandId"]?.stringValue.flatMap(UUID.init(uuidString:))
    let issued = request["issuedAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)) ?? Date()
    let expires = request["expiresAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)) ?? issued
    _ = expires.timeIntervalSince(issued) <= 10
    if let command = request["command"], let parsed = try? ServiceProtocol.command(from: command) {
        // What the daemon accepts, it can describe back.
        let described = try? ServiceProtocol.json(parsed)
        precondition(described.map { (try? ServiceProtocol.command(from: $0)) == parsed } ?? true, "a command does not round-trip")
    }
    return 0
}
