extension UInt8 {
    /// An ASCII letter or digit (and nothing else: no other script's letters or digits,
    /// which is what text from a TV must be held to before it goes into a URL or an id).
    public var isASCIIAlphanumeric: Bool { (48...57).contains(self) || (65...90).contains(self) || (97...122).contains(self) }
}

/// Percent-encoding for URL paths and queries: ASCII letters and digits (and, unless
/// `strict`, `-._~`) stay as they are; every other UTF-8 byte becomes `%XX`.
public func percentEncoded(_ text: String, strict: Bool = false) -> String {
    text.utf8.map { byte in
        byte.isASCIIAlphanumeric || (!strict && [45, 46, 95, 126].contains(byte)) ? String(UnicodeScalar(byte)) : "%" + hexByte(byte)
    }.joined()
}
