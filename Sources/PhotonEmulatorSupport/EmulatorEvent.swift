import Foundation
import Glibc
import PhotonCore

/// Something that happened in an emulated TV, printed by `photon-emulator` as one JSON
/// object per line (with `t`, CLOCK_MONOTONIC seconds) and observed by tests.
public struct EmulatorEvent: Sendable, CustomStringConvertible {
    public let name: String
    public let fields: [(String, EmulatorValue)]
    /// CLOCK_MONOTONIC seconds when it happened.
    public let time: Double

    public init(_ name: String, _ fields: [(String, EmulatorValue)] = []) {
        self.name = name
        self.fields = fields
        self.time = EmulatorEvent.monotonicSeconds()
    }

    /// CLOCK_MONOTONIC in seconds (the clock photon-cli's `PHOTON_TIMINGS` marks use).
    public static func monotonicSeconds() -> Double { PhaseTimer.monotonicSeconds() }

    public subscript(_ key: String) -> EmulatorValue? { fields.first { $0.0 == key }?.1 }

    /// One line of JSON: `{"event":"key","key":"KEYCODE_HOME",...,"t":123.456}`, written
    /// by the one JSON writer every Photon tool uses.
    public var jsonLine: String {
        JSONValue.object([("event", .string(name))] + fields.map { ($0.0, $0.1.json) } + [("t", .double((time * 1e6).rounded() / 1e6))]).encoded
    }

    public var description: String { jsonLine }
}

public enum EmulatorValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)

    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var int: Int? { if case .int(let i) = self { return i } else { return nil } }

    var json: JSONValue {
        switch self {
        case .int(let i): return .int(i)
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        }
    }
}
