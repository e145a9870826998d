import Foundation
import PhotonCore
import PhotonKit
import PhotonPlugins

/// One step of `photon doctor`: what was checked, what was found, and the fix when it
/// failed.
struct DoctorStep: Sendable {
    enum Status: String, Sendable {
        /// Holds.
        case pass
        /// Does not hold: counts for the exit code.
        case fail
        /// Worth knowing, but control works without it (mDNS on a routed network).
        case warn
        /// Does not apply (a brand without TLS, a TV not paired).
        case skip

        var mark: String {
            switch self {
            case .pass: return "✓"
            case .fail: return "✗"
            case .warn: return "!"
            case .skip: return "–"
            }
        }
    }

    let number: Int
    let title: String
    var status: Status
    var detail: String
    var fix: String?
    /// The failure's class, for the exit code (3 unreachable, 4 refused, 5 pin, 1 other).
    var exitCode: Int32 = 1

    static func pass(_ number: Int, _ title: String, _ detail: String) -> DoctorStep {
        DoctorStep(number: number, title: title, status: .pass, detail: detail)
    }
    static func skip(_ number: Int, _ title: String, _ detail: String) -> DoctorStep {
        DoctorStep(number: number, title: title, status: .skip, detail: detail)
    }
    static func warn(_ number: Int, _ title: String, _ detail: String, fix: String?) -> DoctorStep {
        DoctorStep(number: number, title: title, status: .warn, detail: detail, fix: fix)
    }
    static func fail(_ number: Int, _ title: String, _ error: PhotonError, detail: String? = nil) -> DoctorStep {
        DoctorStep(number: number, title: title, status: .fail, detail: detail ?? error.message, fix: error.hint, exitCode: error.exitCode)
    }
}

/// The whole diagnosis, printed for a person, as a redacted report to paste into a bug
/// report, or as JSON.
struct DoctorReport: Sendable {
    var target: String
    var brand: String?
    var steps: [DoctorStep] = []

    /// 0 when every step holds; else the class of the first failed step.
    var exitCode: Int32 { steps.first { $0.status == .fail }?.exitCode ?? 0 }

    /// Masks what identifies a home in a report: IPv4 host octets (`192.168.1.***`), IPv6
    /// addresses (their interface part may embed the MAC), MACs in any spelling — colon,
    /// dash, dotted, compact, inside ids like `androidtv-<mac>` — (`AA:BB:CC:**:**:**`),
    /// certificate pins beyond their first 8 hex digits, Roku serials, the user's home
    /// directory and this machine's host name. Tokens and client keys are never in a step
    /// to begin with.
    static func redact(_ text: String, hostName: String? = HostName.full, brandIDs: [String] = BuiltInPlugins.adapters.ids) -> String {
        var out = text
        // Pins first (their colon form would otherwise look like MACs): SHA256:<8 hex>...
        let colonPin = #/[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){31}/#
        out = out.replacing(colonPin) { match in
            "SHA256:" + String(String(match.output).filter { $0 != ":" }.lowercased().prefix(8)) + "...[REDACTED]"
        }
        let compactPin = #/\b([0-9a-fA-F]{8})[0-9a-fA-F]{56}\b/#
        out = out.replacing(compactPin) { "SHA256:\($0.output.1.lowercased())...[REDACTED]" }
        // IPv6 (not a colon MAC, which the address masking below keeps the maker of).
        let ipv6 = #/(^|[^0-9A-Za-z:.])((?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4})(?![0-9A-Za-z:])/#
        out = out.replacing(ipv6) { match in
            let before = String(match.output.1)
            let text = String(match.output.2)
            let groups = text.split(separator: ":", omittingEmptySubsequences: false)
            if groups.count == 6, groups.allSatisfy({ $0.count == 2 }) { return before + text }
            guard groups.contains(where: { !$0.isEmpty }), text != "::1" else { return before + text }
            return before + "\(groups.first.map(String.init) ?? ""):***:[v6]"
        }
        // Dotted (Cisco) and compact MACs, standalone or inside ids.
        let dottedMAC = #/(^|[^0-9A-Fa-f.])([0-9A-Fa-f]{4})\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![0-9A-Fa-f.])/#
        out = out.replacing(dottedMAC) { "\($0.output.1)\($0.output.2).****.****" }
        let compactMAC = #/(^|[^0-9A-Fa-f])([0-9A-Fa-f]{6})[0-9A-Fa-f]{6}(?![0-9A-Fa-f])/#
        out = out.replacing(compactMAC) { "\($0.output.1)\($0.output.2)******" }
        // Serials in device ids (`<brand>-<serial>`, for every registered brand), and in text.
        for brand in brandIDs {
            let escaped = brand.filter { $0.isLetter || $0.isNumber }
            guard !escaped.isEmpty, let id = try? Regex("(?i)(\(escaped)-)[a-z0-9]{4,}(?![a-z0-9*])") else { continue }
            out = out.replacing(id) { match in "\(match.output[1].substring ?? "")***" }
        }
        out = out.replacing(#/(?i)(serial(?:[ -]number)?[ :=(]{1,3})[a-z0-9]{6,}/#) { "\($0.output.1)***" }
        // The user's home directory (wherever it is), name, and this machine's name.
        let home = NSHomeDirectory()
        if home.count > 1 { out = out.replacingOccurrences(of: home, with: "~") }
        out = out.replacing(#/(/home/)[^/\s"]+/#) { "\($0.output.1)***" }
        let user = NSUserName()
        if user.count >= 3, let name = try? Regex("\\b\(NSRegularExpression.escapedPattern(for: user))\\b") {
            out = out.replacing(name) { _ in "<user>" }
        }
        if let host = hostName?.split(separator: ".").first.map(String.init), host.count >= 3, host != "localhost" {
            out = out.replacingOccurrences(of: host, with: "<this-host>", options: .caseInsensitive)
        }
        return Redaction.maskAddresses(out)
    }

    func text(redacted: Bool) -> String {
        var lines: [String] = []
        if redacted {
            lines.append("photon doctor report (Photon \(PhotonCommandLine.version), \(Self.system()))")
        }
        lines.append("Diagnosing \(target)\(brand.map { " (\($0))" } ?? "")")
        for step in steps {
            lines.append("\(step.status.mark) \(step.number). \(step.title): \(step.detail)")
            if let fix = step.fix, step.status == .fail || step.status == .warn { lines.append("     fix: \(fix)") }
        }
        let failed = steps.filter { $0.status == .fail }.count
        lines.append(failed == 0 ? "Every step holds." : "\(failed) step\(failed == 1 ? "" : "s") failed; the first is the one to fix first.")
        let text = lines.joined(separator: "\n") + "\n"
        return redacted ? Self.redact(text) : text
    }

    var json: JSONValue {
        .object([
            ("target", .string(Self.redact(target))), ("brand", .optional(brand)), ("exitCode", .int(Int(exitCode))),
            (
                "steps",
                .array(
                    steps.map { step in
                        .object([
                            ("step", .int(step.number)), ("title", .string(step.title)), ("status", .string(step.status.rawValue)),
                            ("detail", .string(Self.redact(step.detail))), ("fix", .optional(step.fix.map { Self.redact($0) })),
                        ])
                    })
            ),
        ])
    }

    static func system() -> String {
        var u = utsname()
        uname(&u)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        }
        return "\(field(u.sysname)) \(field(u.release)) \(field(u.machine))"
    }
}
