/// A key read from a terminal in raw mode.
enum TerminalInput: Sendable, Equatable {
    case up, down, left, right, home, end
    case enter, backspace, escape, tab
    /// Ctrl-C and Ctrl-D: in raw mode they arrive as bytes, not signals.
    case interrupt
    case character(Character)
    /// An escape sequence Photon does not use (function keys, mouse…).
    case unknown
}

/// Turns the bytes a terminal sends in raw mode into keys: escape sequences for arrows and
/// Home (CSI and SS3 forms), Enter, Backspace (0x7F, or 0x08), Ctrl-C, UTF-8 characters.
/// A bare Esc is told apart from the start of a sequence by time: it stays pending until
/// `flushEscape()` is called after a short quiet spell.
struct TerminalKeyDecoder: Sendable {
    private var buffer: [UInt8] = []

    /// Whether a lone Esc (or an unfinished sequence) waits for more bytes.
    var isPending: Bool { !buffer.isEmpty }

    mutating func feed(_ bytes: [UInt8]) -> [TerminalInput] {
        buffer += bytes
        var out: [TerminalInput] = []
        while let (input, used) = next(), used > 0 {
            buffer.removeFirst(used)
            if let input { out.append(input) }
        }
        return out
    }

    /// Called when nothing followed for a while: a pending Esc is the Esc key; an
    /// unfinished sequence is dropped.
    mutating func flushEscape() -> [TerminalInput] {
        defer { buffer.removeAll() }
        return buffer == [0x1B] ? [.escape] : (buffer.isEmpty ? [] : [.unknown])
    }

    /// The next input and how many bytes it used; nil when more bytes are needed.
    private func next() -> (TerminalInput?, Int)? {
        guard let first = buffer.first else { return nil }
        switch first {
        case 0x1B: return escapeSequence()
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x09: return (.tab, 1)
        case 0x03, 0x04: return (.interrupt, 1)
        case 0x00..<0x20: return (nil, 1)
        default: return utf8Character()
        }
    }

    private func escapeSequence() -> (TerminalInput?, Int)? {
        guard buffer.count >= 2 else { return nil }
        let second = buffer[1]
        guard second == UInt8(ascii: "[") || second == UInt8(ascii: "O") else {
            // Esc then another key (Alt+key): the Esc alone; the key is read next.
            return (.escape, 1)
        }
        // Parameters and intermediates, then a final byte 0x40–0x7E.
        var index = 2
        while index < buffer.count {
            let byte = buffer[index]
            if (0x40...0x7E).contains(byte) {
                let parameters = String(decoding: buffer[2..<index], as: UTF8.self)
                return (Self.sequence(final: byte, parameters: parameters), index + 1)
            }
            guard (0x20...0x3F).contains(byte), index < 32 else { return (.unknown, index + 1) }
            index += 1
        }
        return nil
    }

    static func sequence(final: UInt8, parameters: String) -> TerminalInput {
        switch (final, parameters) {
        case (UInt8(ascii: "A"), _): return .up
        case (UInt8(ascii: "B"), _): return .down
        case (UInt8(ascii: "C"), _): return .right
        case (UInt8(ascii: "D"), _): return .left
        case (UInt8(ascii: "H"), _): return .home
        case (UInt8(ascii: "F"), _): return .end
        case (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): return .home
        case (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): return .end
        case (UInt8(ascii: "~"), "3"): return .backspace
        default: return .unknown
        }
    }

    private func utf8Character() -> (TerminalInput?, Int)? {
        let first = buffer[0]
        let length: Int
        switch first {
        case 0x00..<0x80: length = 1
        case 0xC2..<0xE0: length = 2
        case 0xE0..<0xF0: length = 3
        case 0xF0..<0xF5: length = 4
        default: return (.unknown, 1)
        }
        guard buffer.count >= length else { return nil }
        let bytes = Array(buffer[0..<length])
        guard bytes.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }), let character = String(validating: bytes, as: UTF8.self)?.first else {
            return (.unknown, 1)
        }
        return (.character(character), length)
    }
}
