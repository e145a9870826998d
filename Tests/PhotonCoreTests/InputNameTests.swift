import PhotonCore
import Testing

/// Input names as users type them, and how a TV's own list resolves them.
@Suite struct InputNameTests {
    @Test func standardNamesInAnySpelling() throws {
        let cases: [(String, InputName)] = [
            ("hdmi1", .hdmi(1)), ("HDMI 2", .hdmi(2)), ("hdmi-3", .hdmi(3)), ("Hdmi_4", .hdmi(4)), ("tv", .tuner), ("Tuner", .tuner),
            ("AV", .composite), ("composite", .composite), ("component", .component), ("hdmi5", .label("hdmi5")),
            ("hdmi12", .label("hdmi12")), ("  PlayStation ", .label("PlayStation")),
        ]
        for (text, expected) in cases { #expect(try InputName(parsing: text) == expected, "\(text)") }
        #expect(InputName.hdmi(2).description == "hdmi2" && InputName.tuner.description == "tv")
    }

    @Test func emptyLongOrControlNamesAreUsageErrors() {
        for bad in ["", "   ", String(repeating: "x", count: 65), "hdmi\n1", "a\u{7F}"] {
            let error = #expect(throws: PhotonError.self) { try InputName(parsing: bad) }
            #expect(error?.code == .usage, "\(bad.debugDescription)")
        }
    }

    @Test func aLabelWinsOverAStandardNameAndUnknownNamesListTheInputs() throws {
        let inputs = [
            TVInput(id: "HDMI_1", label: "HDMI 1", standard: .hdmi(1)), TVInput(id: "HDMI_2", label: "PlayStation", standard: .hdmi(2)),
            TVInput(id: "HDMI_3", label: "hdmi2", standard: .hdmi(3)),
        ]
        #expect(try inputs.matching(.label("playstation")).id == "HDMI_2")
        #expect(try inputs.matching(.hdmi(1)).id == "HDMI_1")
        // The user named HDMI 3 "hdmi2": the label is what they see on screen.
        #expect(try inputs.matching(.hdmi(2)).id == "HDMI_3")
        let error = #expect(throws: PhotonError.self) { try inputs.matching(.label("Xbox")) }
        #expect(error?.code == .notFound)
        #expect(error?.hint?.contains("hdmi2 (PlayStation)") == true, "\(error?.hint ?? "")")
        let none = #expect(throws: PhotonError.self) { try [TVInput]().matching(.hdmi(1)) }
        #expect(none?.hint == "it lists no inputs")
    }

    @Test func anInputCommandNeedsTheInputsCapabilityAndRedactsItsLabel() {
        #expect(RemoteCommand.input(.hdmi(1)).requiredCapability == .inputs)
        #expect(!RemoteCommand.input(.label("a\u{202E}b")).logDescription.contains("\u{202E}"))
    }
}
