import PhotonCore
import Testing

/// The app catalog: names in any spelling, and how a brand's ids and a TV's own list
/// decide what is launched.
@Suite struct AppCatalogTests {
    let ids: [String: [String]] = ["netflix": ["3201907018807", "11101200001"], "youtube": ["111299001912"]]

    @Test func namesInAnySpelling() {
        #expect(AppCatalog.entry(named: "Prime Video")?.key == "prime-video")
        #expect(AppCatalog.entry(named: "prime")?.key == "prime-video")
        #expect(AppCatalog.entry(named: "DISNEY+")?.key == "disney-plus")
        #expect(AppCatalog.entry(named: "hbo max")?.key == "max")
        #expect(AppCatalog.entry(named: "apple_tv")?.key == "apple-tv")
        #expect(AppCatalog.entry(named: "netflixx") == nil)
        #expect(AppCatalog.entry(named: "") == nil)
        #expect(Set(AppCatalog.entries.map(\.key)).count == AppCatalog.entries.count)
    }

    @Test func aTVThatListsItsAppsGetsTheIdItHas() throws {
        // An older set has only the pre-2020 Netflix id.
        let old = [TVApp(id: "11101200001", name: "Netflix"), TVApp(id: "111299001912", name: "YouTube")]
        #expect(try AppCatalog.launchTarget(for: "netflix", ids: ids, installed: old) == "11101200001")
        // An app the brand has no id for is found by its name in the TV's list.
        let withPlex = old + [TVApp(id: "cdp-30", name: "Plex")]
        #expect(try AppCatalog.launchTarget(for: "plex", ids: ids, installed: withPlex) == "cdp-30")
        let missing = #expect(throws: PhotonError.self) { try AppCatalog.launchTarget(for: "Hulu", ids: ids, installed: old) }
        #expect(missing?.code == .notFound)
    }

    @Test func withoutAListTheNewestIdAndIdsOrLinksPassAsGiven() throws {
        #expect(try AppCatalog.launchTarget(for: "Netflix", ids: ids, installed: nil) == "3201907018807")
        let none = #expect(throws: PhotonError.self) { try AppCatalog.launchTarget(for: "kodi", ids: ids, installed: nil) }
        #expect(none?.code == .unsupported)
        #expect(try AppCatalog.launchTarget(for: "12", ids: ids, installed: nil) == "12")
        #expect(try AppCatalog.launchTarget(for: "netflix://title/1", ids: ids, installed: nil) == "netflix://title/1")
        #expect(try AppCatalog.launchTarget(for: "https://www.youtube.com", ids: ids, installed: []) == "https://www.youtube.com")
    }

    @Test func anIdTheTVReportsIsNamed() {
        #expect(AppCatalog.name(ofID: "11101200001", in: ids) == "Netflix")
        #expect(AppCatalog.name(ofID: "42", in: ids) == nil)
    }
}
