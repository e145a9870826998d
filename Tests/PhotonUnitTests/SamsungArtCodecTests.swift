import PhotonCore
import Testing

@testable import SamsungTV

/// The Frame's art channel byte by byte and with malformed input: requests as samsungtvws
/// sends them, answers and pushes, content lists, upload addresses, the D2D headers (both
/// directions and the art API 0.97 binary frame), and the `art` words and uploads every door
/// reads.
@Suite struct SamsungArtCodecTests {
    func answer(_ inner: String) throws -> SamsungArtMessage.Answer? {
        let outer = JSONValue.object([("event", "d2d_service_message"), ("data", .string(inner))]).encoded
        return try SamsungArtMessage.parse(outer)
    }

    @Test func requestsAreEmitsOfAJSONStringWithTheirId() throws {
        let text = SamsungArtMessage.request("select_image", id: "r-1", [("content_id", "MY_F0003"), ("show", true)])
        let outer = try JSONValue.parse(text)
        #expect(outer["method"]?.stringValue == "ms.channel.emit" && outer["params"]?["event"]?.stringValue == "art_app_request")
        #expect(outer["params"]?["to"]?.stringValue == "host")
        let inner = try JSONValue.parse(outer["params"]?["data"]?.stringValue ?? "")
        #expect(inner["request"]?.stringValue == "select_image" && inner["id"]?.stringValue == "r-1" && inner["request_id"]?.stringValue == "r-1")
        #expect(inner["content_id"]?.stringValue == "MY_F0003" && inner["show"]?.boolValue == true)
    }

    @Test func answersAndPushesAreReadAndGarbageRefused() throws {
        let status = try #require(try answer(#"{"event":"artmode_status","value":"on","request_id":"r-2"}"#))
        #expect(status.requestID == "r-2" && status.event == "artmode_status" && SamsungArtMessage.artMode(status.payload) == true)
        let push = try #require(try answer(#"{"event":"art_mode_changed","status":"off"}"#))
        #expect(push.requestID == nil && SamsungArtMessage.artMode(push.payload) == false)
        #expect(try answer(#"{"event":"error","id":"r-3","error_code":"-1"}"#)?.requestID == "r-3")
        #expect(try SamsungArtMessage.parse(#"{"event":"ms.channel.ready","data":{}}"#) == nil)
        for garbage in ["", "[]", "{", #"{"event":"d2d_service_message","data":"not json"}"#, #"{"event":"d2d_service_message","data":"[1]"}"#] {
            #expect(throws: PhotonError.self, "\(garbage)") { _ = try SamsungArtMessage.parse(garbage) }
        }
        let huge = #"{"event":"x","data":""# + String(repeating: "a", count: SamsungArtMessage.maximumSize) + #""}"#
        #expect(throws: PhotonError.self) { _ = try SamsungArtMessage.parse(huge) }
        // An id that could not be sent back is not trusted.
        #expect(try answer(#"{"event":"x","request_id":"a\"b"}"#)?.requestID == nil)
    }

    @Test func contentListsAndUploadAddressesAreCheckedBeforeUse() throws {
        let list = try SamsungArtMessage.contentList(
            try JSONValue.parse(#"{"content_list":"[{\"content_id\":\"MY_F0001\",\"category_id\":\"MY-C0002\"},{\"content_id\":\"bad id\"},{}]"}"#))
        #expect(list.map(\.contentID) == ["MY_F0001"] && list.first?.category == "MY-C0002")
        #expect(throws: PhotonError.self) { _ = try SamsungArtMessage.contentList(try JSONValue.parse(#"{"content_list":"{}"}"#)) }
        let target = try SamsungArtMessage.connection(
            try JSONValue.parse(#"{"conn_info":"{\"ip\":\"127.0.0.1\",\"port\":\"41000\",\"key\":\"k-1\",\"secured\":false}"}"#))
        #expect(target.ip == "127.0.0.1" && target.port == 41000 && target.key == "k-1" && !target.secured)
        for bad in [#"{"conn_info":{"ip":"127.0.0.1","port":70000,"key":"k"}}"#, #"{"conn_info":{"ip":"","port":1,"key":"k"}}"#, #"{}"#] {
            #expect(throws: PhotonError.self, "\(bad)") { _ = try SamsungArtMessage.connection(try JSONValue.parse(bad)) }
        }
    }

    @Test func transferHeadersAreLengthPrefixedJSONBothWays() throws {
        let header = SamsungArtMessage.uploadHeader(fileLength: 2008, fileType: "jpg", key: "k-1")
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        #expect(length == header.count - 4)
        let (read, consumed) = try #require(try SamsungArtMessage.readHeader(header + [1, 2, 3]))
        #expect(consumed == header.count && read["fileLength"]?.intValue == 2008 && read["secKey"]?.stringValue == "k-1")
        #expect(read["num"]?.intValue == 0 && read["total"]?.intValue == 1 && read["fileType"]?.stringValue == "jpg")
        #expect(try SamsungArtMessage.readHeader(Array(header.prefix(6))) == nil)
        #expect(throws: PhotonError.self) { _ = try SamsungArtMessage.readHeader([0xFF, 0, 0, 0]) }
        #expect(throws: PhotonError.self) { _ = try SamsungArtMessage.readHeader([0, 0, 0, 2] + Array("{}".utf8)) }
        let upload = try ArtUpload(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 9])
        let frame = SamsungArtMessage.legacyUpload(upload, id: "u-1")
        let size = Int(frame[0]) << 8 | Int(frame[1])
        let outer = try JSONValue.parse(Array(frame[2..<(2 + size)]))
        let inner = try JSONValue.parse(outer["params"]?["data"]?.stringValue ?? "")
        #expect(inner["request"]?.stringValue == "send_image" && inner["file_type"]?.stringValue == "PNG" && inner["id"]?.stringValue == "u-1")
        #expect(Array(frame[(2 + size)...]) == upload.bytes)
    }

    @Test func artWordsAndUploadsAreReadOnEveryDoorAlike() throws {
        #expect(try ArtCommand(words: "on") == .mode(on: true))
        #expect(try ArtCommand(words: "SHOW MY_F0003") == .show(contentID: "MY_F0003"))
        #expect(try ArtCommand(words: "matte MY_F0003 shadowbox_polar") == .matte(contentID: "MY_F0003", matte: "shadowbox_polar"))
        #expect(try ArtCommand(words: "slideshow off") == .slideshow(minutes: nil))
        #expect(try ArtCommand(words: "brightness 10") == .brightness(10))
        for bad in ["", "dance", "show", "show a/b", "brightness 11", "slideshow 1", "matte X", "on now"] {
            #expect(throws: PhotonError.self, "\(bad)") { _ = try ArtCommand(words: bad) }
        }
        #expect(try RemoteCommand(wire: .object([("art", "show MY_F0003")])) == .art(.show(contentID: "MY_F0003")))
        #expect(try RemoteCommand(verb: "art", argument: "OFF") == .art(.mode(on: false)))
        #expect(throws: PhotonError.self) { _ = try RemoteCommand(wire: .object([("art", "fly away")])) }
        #expect(throws: PhotonError.self) { _ = try ArtUpload(bytes: Array("GIF89a".utf8)) }
        #expect(throws: PhotonError.self) { _ = try ArtUpload(bytes: []) }
        #expect(throws: PhotonError.self) { _ = try ArtUpload(bytes: [0xFF, 0xD8, 0xFF], matte: "a b") }
        #expect(try ArtUpload(bytes: [0xFF, 0xD8, 0xFF, 0xD9]).fileType == "jpg")
        #expect(throws: PhotonError.self) { _ = try RemoteCommand.artUpload(try ArtUpload(bytes: [0xFF, 0xD8, 0xFF])).wire() }
    }
}
