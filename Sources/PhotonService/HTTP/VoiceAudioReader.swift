import Foundation
import PhotonCore
import PhotonNet

/// Why a voice stream was ended early, as the client is told (`{"event":"error","code":…}`)
/// and with the WebSocket close code that follows.
public struct VoiceStreamEnded: Error, Sendable, Equatable {
    public var code: String
    public var message: String
    public var hint: String?
    public var closeCode: UInt16

    static func tooLong(_ maximum: Duration) -> VoiceStreamEnded {
        VoiceStreamEnded(
            code: "voice-too-long", message: "over \(Int(maximum.seconds)) s of audio: the request was ended",
            hint: "release the button when you have spoken", closeCode: 1009)
    }
    static let tooFast = VoiceStreamEnded(
        code: "voice-too-fast", message: "audio arrived faster than it can be spoken: the request was ended",
        hint: "send audio as it is recorded", closeCode: 1008)
    static let badAudio = VoiceStreamEnded(
        code: "bad-audio", message: "a binary frame is not 16-bit PCM (an odd number of bytes)", hint: "send 16-bit little-endian mono",
        closeCode: 1003)
    static let nothing = VoiceStreamEnded(
        code: "no-audio", message: "no audio arrived; nothing was sent", hint: "hold the button while you speak", closeCode: 1000)
}

/// Reads one spoken request's audio from a client's WebSocket: binary frames of 16-bit
/// PCM within a `VoiceStreamBudget`, then `{"end":true}` or `{"cancel":true}`. A client that
/// goes away or sends nothing for `idle` ends the request as if it had let go of the
/// button; anything over a bound throws `VoiceStreamEnded`. These are untrusted bytes from
/// the network, so the reader has a fuzz target of its own (FuzzVoiceStream).
public struct VoiceAudioReader: Sendable {
    /// What the client sent.
    public enum Input: Sendable {
        case audio([Int16])
        case end
        case cancel
    }

    public let connection: WebSocketConnection
    public private(set) var budget: VoiceStreamBudget
    public let idle: Duration

    public init(connection: WebSocketConnection, budget: VoiceStreamBudget, idle: Duration) {
        self.connection = connection
        self.budget = budget
        self.idle = idle
    }

    /// Hands each piece of audio, then the end (or cancel), to `body`.
    public mutating func read(_ body: (Input) async throws -> Void) async throws {
        let opened = ContinuousClock.now
        while true {
            let message: WebSocketMessage?
            do {
                message = try await connection.receive(timeout: idle)
            } catch let error as PhotonError where error.code == .timeout {
                try await body(.end)
                return
            }
            switch message {
            case nil:
                try await body(.end)
                return
            case .binary(let bytes)?:
                guard bytes.count % 2 == 0 else { throw VoiceStreamEnded.badAudio }
                switch budget.accept(bytes.count, at: ContinuousClock.now - opened) {
                case .accepted: try await body(.audio(PCM16.samples(bytes)))
                case .tooLong: throw VoiceStreamEnded.tooLong(budget.maximum)
                case .tooFast: throw VoiceStreamEnded.tooFast
                }
            case .text(let text)?:
                let request = try? JSONValue.parse(Array(text.utf8), maximumDepth: 4)
                if request?["cancel"]?.boolValue == true {
                    try await body(.cancel)
                    return
                }
                if request?["end"]?.boolValue == true {
                    try await body(.end)
                    return
                }
            }
        }
    }
}
