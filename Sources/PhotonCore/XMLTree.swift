/// A small, strict XML reader for the documents TVs answer with (Roku's ECP queries,
/// UPnP descriptions). The bytes are untrusted, so: a size limit before anything is
/// parsed, a depth limit, a limit on elements, no DTD and no entity definitions (only the
/// five predefined entities and numeric character references, so nothing can expand),
/// and every failure is a `protocolViolation`, never a trap. Written here rather than
/// with FoundationXML (libxml2) so the limits are ours and it fuzzes as pure Swift.
public struct XMLElement: Sendable, Equatable {
    public var name: String
    public var attributes: [String: String]
    public var children: [XMLElement]
    /// The element's own text (character data directly inside it), trimmed.
    public var text: String

    public init(name: String, attributes: [String: String] = [:], children: [XMLElement] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The first child named `name`.
    public subscript(child name: String) -> XMLElement? { children.first { $0.name == name } }

    /// The text of the first child named `name`, if there is one.
    public func value(_ name: String) -> String? { self[child: name]?.text }

    /// Every child named `name` (one or many are the same).
    public func all(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// Serialises the element (for round-trip checks and emulators).
    public var serialized: String {
        var out = "<" + name
        for key in attributes.keys.sorted() { out += " \(key)=\"\(XMLTree.escape(attributes[key]!))\"" }
        if children.isEmpty && text.isEmpty { return out + "/>" }
        out += ">" + XMLTree.escape(text)
        for child in children { out += child.serialized }
        return out + "</\(name)>"
    }
}

public enum XMLTree {
    public struct Limits: Sendable {
        public var maximumBytes = 256 * 1024
        public var maximumDepth = 16
        public var maximumElements = 10_000
        public init() {}
    }

    /// Parses one document and returns its root element.
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws -> XMLElement {
        guard bytes.count <= limits.maximumBytes else {
            throw PhotonError(.messageTooLarge, "an XML answer of \(bytes.count) bytes is over the \(limits.maximumBytes)-byte limit")
        }
        var reader = Reader(bytes: bytes, limits: limits)
        return try reader.document()
    }

    /// Text with the five special characters escaped.
    public static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func failure(_ what: String) -> PhotonError { PhotonError(.protocolViolation, "malformed XML: \(what)") }

    struct Reader {
        let bytes: [UInt8]
        let limits: Limits
        var i = 0
        var elements = 0

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        mutating func document() throws -> XMLElement {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
            try skipMisc()
            guard peek("<") else { throw failure("no root element") }
            let root = try element(depth: 1)
            try skipMisc()
            guard i == bytes.count else { throw failure("data after the root element") }
            return root
        }

        func peek(_ s: String) -> Bool {
            let u = Array(s.utf8)
            return i + u.count <= bytes.count && Array(bytes[i..<(i + u.count)]) == u
        }

        mutating func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }

        /// Spaces, comments and processing instructions (the XML declaration) between
        /// elements. A DTD is refused: nothing may define entities.
        mutating func skipMisc() throws {
            while true {
                skipSpace()
                if peek("<?") {
                    try skip(past: "?>")
                } else if peek("<!--") {
                    try skip(past: "-->")
                } else if peek("<!") {
                    throw failure("DTDs and declarations are not accepted")
                } else {
                    return
                }
            }
        }

        mutating func skip(past terminator: String) throws {
            let t = Array(terminator.utf8)
            while i + t.count <= bytes.count {
                if Array(bytes[i..<(i + t.count)]) == t {
                    i += t.count
                    return
                }
                i += 1
            }
            throw failure("unterminated \(terminator)")
        }

        static func isNameByte(_ b: UInt8) -> Bool {
            (65...90).contains(b) || (97...122).contains(b) || (48...57).contains(b) || b == 45 || b == 95 || b == 46 || b == 58 || b >= 0x80
        }

        mutating func name() throws -> String {
            let start = i
            while i < bytes.count, Self.isNameByte(bytes[i]) { i += 1 }
            guard i > start, i - start <= 256, let text = String(validating: bytes[start..<i], as: UTF8.self) else {
                throw failure("a bad name")
            }
            return text
        }

        mutating func element(depth: Int) throws -> XMLElement {
            guard depth <= limits.maximumDepth else { throw failure("nested deeper than \(limits.maximumDepth) levels") }
            elements += 1
            guard elements <= limits.maximumElements else { throw failure("more than \(limits.maximumElements) elements") }
            i += 1  // <
            var element = XMLElement(name: try name())
            while true {
                skipSpace()
                guard i < bytes.count else { throw failure("unterminated tag <\(element.name)>") }
                if peek("/>") {
                    i += 2
                    return element
                }
                if bytes[i] == 62 {  // >
                    i += 1
                    break
                }
                let key = try name()
                skipSpace()
                guard i < bytes.count, bytes[i] == 61 else { throw failure("attribute \(key) has no value") }
                i += 1
                skipSpace()
                guard i < bytes.count, bytes[i] == 34 || bytes[i] == 39 else { throw failure("attribute \(key) is not quoted") }
                let quote = bytes[i]
                i += 1
                let start = i
                while i < bytes.count, bytes[i] != quote {
                    guard bytes[i] != 60 else { throw failure("'<' inside an attribute") }
                    i += 1
                }
                guard i < bytes.count else { throw failure("unterminated attribute \(key)") }
                guard element.attributes[key] == nil else { throw failure("attribute \(key) given twice") }
                element.attributes[key] = try decode(bytes[start..<i])
                i += 1
            }
            var text = ""
            while true {
                guard i < bytes.count else { throw failure("<\(element.name)> is not closed") }
                if peek("</") {
                    i += 2
                    let closing = try name()
                    skipSpace()
                    guard closing == element.name, i < bytes.count, bytes[i] == 62 else {
                        throw failure("<\(element.name)> closed by </\(closing)>")
                    }
                    i += 1
                    element.text = text.trimmingSpaces
                    return element
                }
                if peek("<!--") {
                    try skip(past: "-->")
                } else if peek("<![CDATA[") {
                    i += 9
                    let start = i
                    try skip(past: "]]>")
                    guard let cdata = String(validating: bytes[start..<(i - 3)], as: UTF8.self) else { throw failure("CDATA is not UTF-8") }
                    text += cdata
                } else if peek("<?") {
                    try skip(past: "?>")
                } else if peek("<!") {
                    throw failure("declarations are not accepted inside elements")
                } else if bytes[i] == 60 {
                    element.children.append(try self.element(depth: depth + 1))
                } else {
                    let start = i
                    while i < bytes.count, bytes[i] != 60 { i += 1 }
                    text += try decode(bytes[start..<i])
                }
            }
        }

        /// Character data with the predefined entities and numeric references resolved.
        /// Works on bytes, not Characters: a combining mark after `;` would otherwise join it
        /// into one grapheme and hide the end of the entity.
        func decode(_ slice: ArraySlice<UInt8>) throws -> String {
            guard String(validating: slice, as: UTF8.self) != nil else { throw failure("text that is not UTF-8") }
            guard slice.contains(0x26) else { return String(decoding: slice, as: UTF8.self) }
            var out: [UInt8] = []
            out.reserveCapacity(slice.count)
            var i = slice.startIndex
            while i < slice.endIndex {
                guard slice[i] == 0x26 else {
                    out.append(slice[i])
                    i += 1
                    continue
                }
                guard let semi = slice[i..<min(i + 12, slice.endIndex)].firstIndex(of: 0x3B) else { throw failure("an unterminated entity") }
                let entity = String(decoding: slice[(i + 1)..<semi], as: UTF8.self)
                switch entity {
                case "amp": out.append(0x26)
                case "lt": out.append(0x3C)
                case "gt": out.append(0x3E)
                case "quot": out.append(0x22)
                case "apos": out.append(0x27)
                default:
                    var value: UInt32?
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                        value = UInt32(entity.dropFirst(2), radix: 16)
                    } else if entity.hasPrefix("#") {
                        value = UInt32(entity.dropFirst(), radix: 10)
                    }
                    guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                        throw failure("unknown entity &\(Redaction.sanitize(entity, limit: 12));")
                    }
                    out += Array(String(Character(scalar)).utf8)
                }
                i = semi + 1
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
