import Foundation
import PhotonCore
import PhotonNet
import PhotonService

// The web remote's microphone stream as the daemon reads it: WebSocket frames from a
// client (masked, as a browser sends them) carrying 16-bit PCM and the end or cancel
// messages, read within the budget and resampled as for an Android TV. Every input must
// end in audio and an end, a cancel, or a clear refusal; never more audio than the budget
// allows, and never a crash or a hang.

/// The client: the input, then the connection closes.
final class RecordedClient: ByteStream, @unchecked Sendable {
    private var bytes: [UInt8]
    private let lock = NSLock()
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var peerCertificate: CertificateInfo? { nil }
    var localCertificate: CertificateInfo? { nil }

    func read(maxLength: Int, timeout: Duration?) async throws -> [UInt8] {
        lock.withLock {
            let count = min(maxLength, bytes.count)
            defer { bytes.removeFirst(count) }
            return Array(bytes.prefix(count))
        }
    }

    func write(_ bytes: [UInt8], timeout: Duration?) async throws {}
    func close() async {}
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    let finished = DispatchSemaphore(value: 0)
    Task {
        let connection = WebSocketConnection(stream: RecordedClient(input), role: .server, maxMessageSize: 16 * 1024)
        let budget = VoiceStreamBudget(sampleRate: 16000, maximum: .seconds(1), slack: .milliseconds(500))
        var reader = VoiceAudioReader(connection: connection, budget: budget, idle: .seconds(5))
        var resampler = Resampler(from: 16000, to: 8000)
        var samples = 0
        var produced = 0
        var ends = 0
        do {
            try await reader.read { piece in
                switch piece {
                case .audio(let block):
                    samples += block.count
                    produced += resampler.push(PCM16.floats(block)).count
                case .end, .cancel:
                    ends += 1
                    produced += resampler.finish().count
                }
            }
            precondition(ends == 1, "a stream read to its end without one end or cancel")
        } catch is VoiceStreamEnded {
        } catch let error as PhotonError {
            precondition(!error.message.isEmpty)
        } catch {
            preconditionFailure("an unexpected error: \(error)")
        }
        precondition(samples * 2 == reader.budget.bytes, "audio not counted against the budget")
        precondition(samples <= 16000, "more than the budget's second of audio was accepted")
        precondition(produced <= samples / 2 + 1, "the resampler made more than the input's length")
        finished.signal()
    }
    finished.wait()
    return 0
}
