/// A JSON value for `--json` output and the daemon's JSON-lines API: deterministic (keys
/// in the order given) and escaped so nothing from a TV can break a line. This module
/// needs nothing but the standard library, so the small `photon` front end can use it.
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
                    let digits = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
