import FireTV
import PhotonCore

/// The device shell as far as the emulated Fire TV needs it: a command line split the way
/// `sh` splits it (single and double quotes, backslashes, `;`, `&&` and `|`), and the few
/// commands Photon and the reference clients send, run against the device's state.
/// Anything a real shell would expand or run — `$`, a backtick, a redirection, a
/// subshell — outside quotes is refused and reported as an `injection` event: the adapter
/// must never produce one.
public enum EmulatedShell {
    /// One simple command: its words, and whether it feeds the next one through a pipe.
    public struct Command: Sendable, Equatable {
        public var words: [String]
        public var pipesIntoNext: Bool
        public init(words: [String], pipesIntoNext: Bool) {
            self.words = words
            self.pipesIntoNext = pipesIntoNext
        }
    }

    /// Splits a command line. Throws (with what was found) on anything it would have to
    /// expand or run.
    public static func parse(_ line: String) throws -> [Command] {
        var commands: [Command] = []
        var words: [String] = []
        var word = ""
        var inWord = false
        var scalars = Array(line.unicodeScalars)[...]
        func endWord() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        func endCommand(pipe: Bool) {
            endWord()
            if !words.isEmpty { commands.append(Command(words: words, pipesIntoNext: pipe)) }
            words = []
        }
        while let c = scalars.popFirst() {
            switch c {
            case "'":
                inWord = true
                guard let close = scalars.firstIndex(of: "'") else { throw ShellRefusal("an unterminated single quote") }
                word.unicodeScalars.append(contentsOf: scalars[..<close])
                scalars = scalars[(close + 1)...]
            case "\"":
                inWord = true
                while true {
                    guard let d = scalars.popFirst() else { throw ShellRefusal("an unterminated double quote") }
                    if d == "\"" { break }
                    if d == "$" || d == "`" { throw ShellRefusal("'\(d)' inside double quotes (it would be expanded)") }
                    if d == "\\", let next = scalars.first, "$`\"\\\n".unicodeScalars.contains(next) {
                        word.unicodeScalars.append(scalars.removeFirst())
                    } else {
                        word.unicodeScalars.append(d)
                    }
                }
            case "\\":
                inWord = true
                guard let next = scalars.popFirst() else { throw ShellRefusal("a trailing backslash") }
                if next != "\n" { word.unicodeScalars.append(next) }
            case " ", "\t":
                endWord()
            case "\n", ";":
                endCommand(pipe: false)
            case "&":
                guard scalars.first == "&" else { throw ShellRefusal("'&' (a background job)") }
                scalars.removeFirst()
                endCommand(pipe: false)
            case "|":
                guard scalars.first != "|" else { throw ShellRefusal("'||'") }
                endCommand(pipe: true)
            case "$", "`", "(", ")", "<", ">", "{", "}", "*", "?", "[", "~":
                throw ShellRefusal("'\(c)' outside quotes (the shell would expand or run it)")
            case "#" where !inWord:
                throw ShellRefusal("'#' starting a word (the rest would be a comment)")
            default:
                inWord = true
                word.unicodeScalars.append(c)
            }
        }
        endCommand(pipe: false)
        return commands
    }

    /// Why a command line was refused.
    public struct ShellRefusal: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// What `input text` types for its argument: `%s` is a space.
    public static func typed(_ argument: String) -> String {
        var result = ""
        var escape = false
        for c in argument {
            if escape {
                escape = false
                if c == "s" {
                    result.removeLast()
                    result.append(" ")
                    continue
                }
            }
            result.append(c)
            if c == "%" { escape = true }
        }
        return result
    }
}
