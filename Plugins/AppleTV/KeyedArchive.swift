import PhotonCore

/// NSKeyedArchiver's layout on top of a binary property list: a flat `$objects` list whose
/// first entry is `"$null"`, objects that point at one another and at their class
/// descriptions through UIDs, and a `$top` dictionary. The Apple TV's text-input session
/// (RTI) speaks in these archives; this builds the few it needs and reads values out of
/// the ones it sends by following UIDs along a key path.
public struct KeyedArchive: Sendable {
    private var objects: [PlistValue] = [.string("$null")]
    private var classes: [String: PlistValue] = [:]

    public init() {}

    /// Adds a plain value (string, data, number) and returns its reference.
    public mutating func add(_ value: PlistValue) -> PlistValue {
        objects.append(value)
        return .uid(UInt64(objects.count - 1))
    }

    /// Adds an object of class `name` (a subclass of NSObject) with `fields`, which hold
    /// references from `add` or `object`; returns its reference.
    public mutating func object(_ name: String, _ fields: KeyValuePairs<String, PlistValue>) -> PlistValue {
        let reference = add(.bool(false))  // its place, so that it comes before its parts
        let index = Int(reference.uidValue!)
        let classReference = classes[name] ?? add(.dictionary(["$classname": .string(name), "$classes": .array([.string(name), "NSObject"])]))
        classes[name] = classReference
        objects[index] = .dictionary(fields.map { PlistEntry(key: $0.key, value: $0.value) } + [PlistEntry(key: "$class", value: classReference)])
        return reference
    }

    /// The archive as bytes, with `top` (references) as its root.
    public func encoded(top: KeyValuePairs<String, PlistValue>, archiver: String = "RTIKeyedArchiver") -> [UInt8] {
        BinaryPlist.encode(
            .dictionary([
                "$version": .int(100_000), "$archiver": .string(archiver),
                "$top": .dictionary(top.map { PlistEntry(key: $0.key, value: $0.value) }), "$objects": .array(objects),
            ]))
    }

    /// The value at `path` from `$top`, following each UID into `$objects`; nil when a key
    /// is missing. Throws on bytes that are not an archive.
    public static func value(in bytes: [UInt8], at path: [String]) throws -> PlistValue? {
        let archive = try BinaryPlist.decode(bytes)
        guard let top = archive["$top"], case .array(let objects)? = archive["$objects"] else {
            throw BinaryPlist.failure("a keyed archive without $top or $objects")
        }
        func resolve(_ value: PlistValue) throws -> PlistValue {
            guard case .uid(let index) = value else { return value }
            guard index < UInt64(objects.count) else { throw BinaryPlist.failure("a reference to object \(index) of \(objects.count)") }
            return objects[Int(index)]
        }
        var element = top
        for key in path {
            guard let next = element[key] else { return nil }
            element = try resolve(next)
        }
        return element
    }
}

/// The RTI (remote text input) payloads of Companion's `_tiC` event and the `_tiStart`
/// reply, as pyatv 0.18 and tvOS write them.
public enum RemoteTextInput {
    /// Types `text` into the field of session `session` (the 16 bytes of its UUID).
    public static func insert(_ text: String, session: [UInt8]) -> [UInt8] {
        var archive = KeyedArchive()
        let string = archive.add(.string(text))
        let output = archive.object("TIKeyboardOutput", ["insertionText": string])
        let operations = textOperations(&archive, output: output, session: session, extra: nil)
        return archive.encoded(top: ["textOperations": operations])
    }

    /// Empties the field of session `session`.
    public static func clear(session: [UInt8]) -> [UInt8] {
        var archive = KeyedArchive()
        let output = archive.object("TIKeyboardOutput", [:])
        let empty = archive.add(.string(""))
        let operations = textOperations(&archive, output: output, session: session, extra: ("textToAssert", empty))
        return archive.encoded(top: ["textOperations": operations])
    }

    private static func textOperations(
        _ archive: inout KeyedArchive, output: PlistValue, session: [UInt8], extra: (String, PlistValue)?
    ) -> PlistValue {
        let uuidBytes = archive.add(.data(session))
        let uuid = archive.object("NSUUID", ["NS.uuidbytes": uuidBytes])
        if let extra {
            return archive.object("RTITextOperations", ["keyboardOutput": output, "targetSessionUUID": uuid, extra.0: extra.1])
        }
        return archive.object("RTITextOperations", ["keyboardOutput": output, "targetSessionUUID": uuid])
    }

    /// What a `_tiC` payload asks for.
    public enum Operation: Equatable, Sendable {
        case insert(String, session: [UInt8])
        case clear(session: [UInt8])
    }

    /// Reads a `_tiC` payload (the emulated Apple TV's side).
    public static func operation(in payload: [UInt8]) throws -> Operation {
        guard let session = try KeyedArchive.value(in: payload, at: ["textOperations", "targetSessionUUID", "NS.uuidbytes"])?.dataValue,
            session.count == 16
        else { throw BinaryPlist.failure("text operations without a 16-byte session UUID") }
        if let text = try KeyedArchive.value(in: payload, at: ["textOperations", "keyboardOutput", "insertionText"])?.stringValue {
            return .insert(text, session: session)
        }
        if try KeyedArchive.value(in: payload, at: ["textOperations", "textToAssert"])?.stringValue == "" { return .clear(session: session) }
        throw BinaryPlist.failure("text operations that neither insert nor clear")
    }

    /// The `_tiStart` reply's `_tiD`: the focused field's session and its text (the
    /// emulated Apple TV's side).
    public static func sessionStarted(session: [UInt8], text: String) -> [UInt8] {
        var archive = KeyedArchive()
        let uuid = archive.add(.data(session))
        let context = archive.add(.string(text))
        let document = archive.object("TIDocumentState", ["contextBeforeInput": context])
        let state = archive.object("RTIDocumentState", ["docSt": document])
        return archive.encoded(top: ["sessionUUID": uuid, "documentState": state])
    }

    /// The focused field's session UUID and its text, from a `_tiStart` reply's `_tiD`.
    public static func session(in payload: [UInt8]) throws -> (session: [UInt8], text: String) {
        guard let session = try KeyedArchive.value(in: payload, at: ["sessionUUID"])?.dataValue, session.count == 16 else {
            throw BinaryPlist.failure("a text-input session without a 16-byte UUID")
        }
        let text = try KeyedArchive.value(in: payload, at: ["documentState", "docSt", "contextBeforeInput"])?.stringValue
        return (session, text ?? "")
    }
}
