import CQREncode

/// A QR code's modules (libqrencode, loaded at first use), drawn for a terminal (half
/// blocks, dark on light, so it scans on a dark terminal too) or for a page (SVG): the web
/// pairing URL and HomeKit's setup payload.
public struct QRCode: Sendable {
    /// Modules on a side.
    public let width: Int
    let modules: [UInt8]

    /// Nil when the text does not fit or libqrencode is missing (the caller shows the text).
    public init?(_ text: String) {
        var modules = [UInt8](repeating: 0, count: 177 * 177)
        let width = Int(photon_qr_encode(text, &modules, Int32(modules.count)))
        guard width > 0 else { return nil }
        self.width = width
        self.modules = Array(modules.prefix(width * width))
    }

    /// Whether the module at (x, y) is dark; outside the symbol (the quiet zone) it is light.
    public func isDark(_ x: Int, _ y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < width else { return false }
        return modules[y * width + x] == 1
    }

    /// Two rows a line, with a two-module quiet zone.
    public var terminalText: String {
        let quiet = 2
        let size = width + 2 * quiet
        var out = ""
        for y in stride(from: 0, to: size, by: 2) {
            out += "\u{1B}[30;47m"
            for x in 0..<size {
                switch (isDark(x - quiet, y - quiet), isDark(x - quiet, y + 1 - quiet)) {
                case (true, true): out += "█"
                case (true, false): out += "▀"
                case (false, true): out += "▄"
                case (false, false): out += " "
                }
            }
            out += "\u{1B}[0m\n"
        }
        return out
    }

    /// An SVG of the code with a four-module quiet zone, one path of unit squares.
    public var svg: String {
        let size = width + 8
        var path = ""
        for y in 0..<width {
            for x in 0..<width where isDark(x, y) { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        return
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size) \(size)\" shape-rendering=\"crispEdges\" role=\"img\" aria-label=\"QR code\">"
            + "<rect width=\"\(size)\" height=\"\(size)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
    }
}
