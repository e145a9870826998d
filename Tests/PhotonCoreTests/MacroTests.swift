import PhotonCore
import Testing

/// Macro steps as users write them, and the errors that name the step at fault.
@Suite struct MacroTests {
    @Test func everyKindOfStep() throws {
        let macro = try Macro(steps: [
            "key home", "key down down select", "text the  expanse", "launch youtube", "volume 12", "volume mute", "input HDMI 2",
            "channel 7.1", "channel up", "search the expanse", "notify Dinner", "screen off", "power on", "wait 500ms", "wait 2s",
            "wait-for app prime video 30s", "wait-for app youtube", "wait-for power standby 1m",
        ])
        let steps = macro.steps.map(\.step)
        #expect(steps[0] == .commands([.key(.key(.home), .press)]))
        #expect(steps[1] == .commands([.key(.key(.down), .press), .key(.key(.down), .press), .key(.key(.select), .press)]))
        #expect(steps[2] == .commands([.text("the  expanse")]), "text keeps its spacing")
        #expect(steps[3] == .commands([.launch("youtube")]))
        #expect(steps[4] == .commands([.setVolume(12)]) && steps[5] == .commands([.volume(.mute)]))
        #expect(steps[6] == .commands([.input(.hdmi(2))]))
        #expect(steps[7] == .commands([.channel(ChannelNumber(major: 7, minor: 1))]) && steps[8] == .commands([.key(.key(.channelUp), .press)]))
        #expect(steps[9] == .commands([.search("the expanse")]) && steps[10] == .commands([.notify("Dinner")]))
        #expect(steps[11] == .commands([.screen(on: false)]) && steps[12] == .power(.on))
        #expect(steps[13] == .wait(.milliseconds(500)) && steps[14] == .wait(.seconds(2)))
        #expect(steps[15] == .waitFor(.app("prime video"), within: .seconds(30)))
        #expect(steps[16] == .waitFor(.app("youtube"), within: Macro.defaultWaitFor))
        #expect(steps[17] == .waitFor(.power(.standby), within: .seconds(60)))
        #expect(macro.longestRun(perStep: .seconds(1)) > .seconds(92))
    }

    @Test func aFileSkipsCommentsAndBlankLines() throws {
        let macro = try Macro(file: "# movie night\r\npower on\n\n   # wait for it\n  wait-for power on 20s\nlaunch netflix\n")
        #expect(macro.steps.map(\.text) == ["power on", "wait-for power on 20s", "launch netflix"])
    }

    @Test func errorsNameTheStepAndNothingIsHalfParsed() {
        for (steps, fragment) in [
            (["key home", "lunch x"], "step 2 (\"lunch x\")"), (["key warp"], "unknown key"), (["wait 11m"], "at most 10 minutes"),
            (["wait 5"], "not a time"), (["wait -1s"], "not a time"), (["volume 101"], "volume takes"), (["power sideways"], "on, off or toggle"),
            (["wait-for power dim"], "power state"), (["wait-for app"], "wait-for takes"), (["text"], "text takes"), (["screen dim"], "on or off"),
            (["key home\u{1B}[2J"], "one line"), ([], "at least one step"), (["notify \u{07}"], "control characters"),
        ] {
            let error = #expect(throws: PhotonError.self, "\(steps)") { try Macro(steps: steps) }
            #expect(error?.code == .usage, "\(steps)")
            #expect(error?.message.contains(fragment) == true, "\(steps): \(error?.message ?? "")")
        }
        #expect(throws: PhotonError.self) { try Macro(steps: Array(repeating: "key home", count: Macro.stepLimit + 1)) }
    }
}
