import Foundation

/// The environment a command runs with, read one variable at a time. Building
/// `ProcessInfo.processInfo.environment` (every variable into a dictionary) costs about
/// half a millisecond of a cold `photon key`, which reads four variables; tests give a
/// dictionary instead, which is then the whole environment.
public struct EnvironmentVariables: Sendable, ExpressibleByDictionaryLiteral {
    private let lookup: @Sendable (String) -> String?

    /// This process's environment, read with `getenv` as each variable is asked for.
    public static let process = EnvironmentVariables { name in getenv(name).map { String(cString: $0) } }

    /// Exactly these variables, and no others.
    public init(_ variables: [String: String]) { lookup = { variables[$0] } }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    private init(lookup: @escaping @Sendable (String) -> String?) { self.lookup = lookup }

    /// The variable's value, or nil when it is not set.
    public subscript(name: String) -> String? { lookup(name) }
}
