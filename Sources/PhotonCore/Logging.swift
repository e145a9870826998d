import Foundation

/// Photon's debug log. Every line passes through `Redaction.redact` before it reaches the
/// sink, so a token or key that slips into a message is still not written out.
public struct PhotonLog: Sendable {
    public typealias Sink = @Sendable (String) -> Void
    private let sink: Sink?

    public init(sink: Sink?) { self.sink = sink }

    /// A log that discards everything (the default when `--verbose` is off).
    public static let silent = PhotonLog(sink: nil)

    /// A log that writes `photon: debug: ...` lines to standard error.
    public static let standardError = PhotonLog { line in
        FileHandle.standardError.write(Data(("photon: debug: " + line + "\n").utf8))
    }

    public var isEnabled: Bool { sink != nil }

    public func debug(_ message: @autoclosure () -> String) {
        guard let sink else { return }
        sink(Redaction.redact(message()))
    }
}

/// Redaction and sanitising of text that may hold secrets or that came from the network.
public enum Redaction {
    /// Redacts the values of secret-looking query parameters, cookies and JSON fields
    /// (`token`, `key`, `secret`, `password`, `pin`, pairing `code`s, the web door's
    /// `photon_token` cookie), string or number, and `Bearer` credentials, in a log line.
    public static func redact(_ text: String) -> String {
        var out = redactBearer(in: text)
        for name in ["token", "key", "client-key", "secret", "password", "pin", "auth", "photon_token"] {
            out = redactQueryParameter(name, in: out)
            out = redactJSONField(name, in: out)
        }
        // A `code` is a secret only when it looks like a pairing code (4 to 8 letters and
        // digits with a digit among them): error codes (`"code":"usage"`) stay readable.
        out = redactQueryParameter("code", in: out, only: isPairingCode)
        return redactJSONField("code", in: out, only: isPairingCode)
    }

    static func isPairingCode(_ value: Substring) -> Bool {
        (4...8).contains(value.count) && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } && value.contains { $0.isNumber }
    }

    /// `Bearer TOKEN` (an Authorization header) → `Bearer [REDACTED]`.
    static func redactBearer(in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: "bearer ", options: .caseInsensitive) {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let end = rest.firstIndex(where: { $0 == " " || $0 == "\"" || $0 == "\n" || $0 == "," || $0 == ")" }) ?? rest.endIndex
            if end != rest.startIndex { result += "[REDACTED]" }
            rest = rest[end...]
        }
        return result + rest
    }

    static func redactQueryParameter(_ name: String, in text: String, only isSecret: (Substring) -> Bool = { _ in true }) -> String {
        var result = ""
        var rest = Substring(text)
        let marker = name + "="
        while let range = rest.range(of: marker, options: .caseInsensitive) {
            let before = rest[..<range.lowerBound]
            // After the start of a query, a parameter, a space, a parenthesis or another
            // cookie (`; photon_token=`).
            let boundaryOK = before.last.map { "?& (;,\"'\t".contains($0) } ?? true
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            guard boundaryOK else { continue }
            let end = rest.firstIndex(where: { "& \";,)\n\t".contains($0) }) ?? rest.endIndex
            guard end != rest.startIndex, isSecret(rest[..<end]) else { continue }
            result += "[REDACTED]"
            rest = rest[end...]
        }
        return result + rest
    }

    static func redactJSONField(_ name: String, in text: String, only isSecret: (Substring) -> Bool = { _ in true }) -> String {
        var result = ""
        var rest = Substring(text)
        let marker = "\"" + name + "\""
        while let range = rest.range(of: marker, options: .caseInsensitive) {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            var probe = rest.drop(while: { $0 == " " })
            guard probe.first == ":" else { continue }
            probe = probe.dropFirst().drop(while: { $0 == " " })
            // A number (a numeric PIN or code) is redacted whole.
            if let first = probe.first, first.isNumber || first == "-" {
                let end = probe.dropFirst().firstIndex(where: { !($0.isNumber || $0 == ".") }) ?? probe.endIndex
                guard isSecret(probe[..<end]) else { continue }
                result += rest[..<probe.startIndex]
                result += "[REDACTED]"
                rest = probe[end...]
                continue
            }
            guard probe.first == "\"" else { continue }
            let valueStart = probe.index(after: probe.startIndex)
            var i = valueStart
            while i < probe.endIndex, probe[i] != "\"" {
                if probe[i] == "\\" {
                    i = probe.index(after: i)
                    if i == probe.endIndex { break }
                }
                i = probe.index(after: i)
            }
            guard isSecret(probe[valueStart..<i]) else { continue }
            result += rest[..<valueStart]
            result += "[REDACTED]"
            rest = probe[i...]
        }
        return result + rest
    }

    /// Makes text from the network safe to print: control characters and escape
    /// sequences become `?`, and it is cut to `limit` characters.
    public static func sanitize(_ text: String, limit: Int = 256) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                out += "…"
                break
            }
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (v >= 0x80 && v < 0xA0) || v == 0x200E || v == 0x200F
                || (v >= 0x202A && v <= 0x202E) || (v >= 0x2066 && v <= 0x2069)
            {
                out.unicodeScalars.append("?")
            } else {
                out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }

    /// Masks the last octet of IPv4 addresses and the last three bytes of MACs, for
    /// diagnostic reports.
    public static func maskAddresses(_ text: String) -> String {
        var out = text
        let ipv4 = #/\b(\d{1,3}\.\d{1,3}\.\d{1,3})\.\d{1,3}\b/#
        out = out.replacing(ipv4) { "\($0.output.1).***" }
        let mac = #/\b([0-9A-Fa-f]{2}[:-][0-9A-Fa-f]{2}[:-][0-9A-Fa-f]{2})[:-][0-9A-Fa-f]{2}[:-][0-9A-Fa-f]{2}[:-][0-9A-Fa-f]{2}\b/#
        out = out.replacing(mac) { "\($0.output.1):**:**:**" }
        return out
    }
}
