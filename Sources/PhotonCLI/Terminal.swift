import Foundation
import Glibc
import PhotonCore

/// Where the CLI reads and writes. The real one is the process's standard streams; tests
/// use `CapturingTerminal` to run commands in-process.
public protocol Terminal: Sendable {
    func write(_ text: String)
    func writeError(_ text: String)
    /// Whether a person can answer prompts (stdin is a TTY).
    var isInteractive: Bool { get }
    /// Whether stdout may use colour (a TTY, and NO_COLOR unset).
    var usesColor: Bool { get }
    /// One line from stdin (without the newline), or nil at end of input.
    func readLine() -> String?
}

/// The process's own stdin, stdout and stderr.
public struct StandardTerminal: Terminal {
    public init() {}

    public func write(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    public func writeError(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
    public var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }
    public var usesColor: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }
    public func readLine() -> String? { Swift.readLine(strippingNewline: true) }
}

/// A terminal that records output, for tests.
public final class CapturingTerminal: Terminal {
    private let state: Locked<(out: String, err: String, input: [String])>
    public let isInteractive: Bool

    public init(input: [String] = [], interactive: Bool = false) {
        state = Locked((out: "", err: "", input: input))
        isInteractive = interactive
    }

    public var output: String { state.withLock { $0.out } }
    public var errors: String { state.withLock { $0.err } }
    public func write(_ text: String) { state.withLock { $0.out += text } }
    public func writeError(_ text: String) { state.withLock { $0.err += text } }
    public var usesColor: Bool { false }
    public func readLine() -> String? {
        state.withLock { s in s.input.isEmpty ? nil : s.input.removeFirst() }
    }
}

/// A JSON value for `--json` output: deterministic (keys in the order given) and
/// escaped so nothing from a TV can break a line.
public enum JSONValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    public static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.encoded == b.encoded }

    /// One line of JSON.
    public var encoded: String {
        switch self {
        case .string(let s): return Self.quote(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items): return "[" + items.map(\.encoded).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { Self.quote($0.0) + ":" + $0.1.encoded }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (scalar.value >= 0x2028 && scalar.value <= 0x2029) {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
