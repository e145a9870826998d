import Foundation
import PhotonCore
import PhotonNet

/// Answers SSDP searches for one search target on a UDP port of its own, as a TV does on
/// port 1900: how `photon discover --ssdp HOST:PORT` finds an emulated TV of a brand that
/// is found by SSDP (Roku, LG). Only loopback or a namespace's own addresses are used in
/// tests; nothing is sent unasked.
public final class SSDPResponder: Sendable {
    public let port: UInt16
    private let receiver: UDPReceiver
    private let answering = Locked<Task<Void, Never>?>(nil)

    /// Listens on `host:port` (0: a free port) and answers an `M-SEARCH` for
    /// `searchTarget` (or `ssdp:all`) with `location` and `usn`; `onSearch` hears the asker.
    public init(
        host: String, port: UInt16, searchTarget: String, location: String, usn: String, onSearch: @escaping @Sendable (String) -> Void
    ) throws {
        receiver = try UDPReceiver(host: host, port: port)
        self.port = receiver.port
        let answer = "HTTP/1.1 200 OK\r\nCache-Control: max-age=1800\r\nST: \(searchTarget)\r\nLocation: \(location)\r\nUSN: \(usn)\r\n\r\n"
        let receiver = self.receiver
        answering.withLock {
            $0 = Task {
                while let (bytes, from) = try? await receiver.receive(timeout: nil) {
                    let search = String(decoding: bytes, as: UTF8.self)
                    guard search.hasPrefix("M-SEARCH"), search.contains(searchTarget) || search.contains("ssdp:all") else { continue }
                    try? receiver.send(Array(answer.utf8), to: from.host, port: from.port)
                    onSearch(from.host)
                }
            }
        }
    }

    /// Stops answering and closes the port.
    public func stop() {
        answering.withLock { $0?.cancel() }
        receiver.close()
    }
}
