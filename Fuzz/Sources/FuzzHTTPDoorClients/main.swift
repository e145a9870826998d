import Foundation
import PhotonCore
import PhotonService

// The HTTP door's request reader against scripted clients: slow (a byte at a time), silent
// (a head or body that stops), closing mid-request, and pipelining. The input is a script:
// a byte 0xFF is a stall (the read times out, as the clock passing the deadline would),
// 0xFE closes the connection, any other byte N sends the next N input bytes; the script's
// end is a client that goes silent. Each client must come to a request within the limits,
// a refusal with an error status, or a clean end; a hang fails the replay (-timeout=10).

/// A client that follows the script: no real waiting, the stall is a timeout at once.
final class ScriptedClient: ByteStream, @unchecked Sendable {
    private var script: [UInt8]
    private var position = 0
    private var pending: [UInt8] = []
    private let lock = NSLock()
    init(_ script: [UInt8]) { self.script = script }
    var peerCertificate: CertificateInfo? { nil }
    var localCertificate: CertificateInfo? { nil }

    func read(maxLength: Int, timeout: Duration?) async throws -> [UInt8] {
        try lock.withLock {
            while pending.isEmpty {
                guard position < script.count else { throw PhotonError(.timeout, "the client went silent") }
                let control = script[position]
                position += 1
                switch control {
                case 0xFF: throw PhotonError(.timeout, "the client stalled")
                case 0xFE: return []
                default:
                    let end = min(script.count, position + Int(control))
                    pending = Array(script[position..<end])
                    position = end
                }
            }
            let count = min(maxLength, pending.count)
            defer { pending.removeFirst(count) }
            return Array(pending.prefix(count))
        }
    }

    func write(_ bytes: [UInt8], timeout: Duration?) async throws {}
    func close() async {}
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let script = Array(UnsafeRawBufferPointer(start: start, count: count))
    let maximumBody = 1024
    for first in [true, false] {
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome = HTTPDoorReadingOutcome.ended
        Task {
            outcome = await HTTPDoorReadingOutcome.reading(
                ScriptedClient(script), maximumHead: 2048, maximumBody: maximumBody, timeout: .seconds(10), first: first)
            finished.signal()
        }
        finished.wait()
        switch outcome {
        case .request(let body, _):
            precondition(body <= maximumBody, "a body over the limit was accepted")
        case .refused(let status):
            precondition((400...599).contains(status), "a refusal without an error status")
        case .ended:
            break
        }
    }
    return 0
}
