import PhotonCore
import Testing

@testable import PhotonKit

/// A macro's `wait-for` after a command does not pass on what the TV reported before that
/// command (newcomer #6: `launch netflix`, then `wait-for app youtube` passed at once on the
/// YouTube shown before); a state that then holds, unreported, counts after the grace.
@Suite struct MacroWaitForTests {
    @Test func aReportOlderThanTheCommandDoesNotCountUntilItHolds() async throws {
        let (updates, feed) = AsyncStream.makeStream(of: TVUpdate.self)
        let watcher = MacroWatcher(updates)
        defer { watcher.stop() }
        feed.yield(.event(.currentApp("YouTube (837)")))
        let catalog = ["youtube": ["837"]]
        // Before any command, what is known counts.
        try await watcher.wait(for: .app("youtube"), within: .seconds(2), catalog: catalog)
        let sent = ContinuousClock.now
        let stale = await #expect(throws: PhotonError.self) {
            try await watcher.wait(for: .app("youtube"), within: .milliseconds(200), catalog: catalog, since: sent, grace: .seconds(5))
        }
        #expect(stale?.code == .timeout)
        // A report after the command counts at once.
        feed.yield(.event(.currentApp("Netflix (12)")))
        feed.yield(.event(.currentApp("YouTube (837)")))
        try await watcher.wait(for: .app("youtube"), within: .seconds(2), catalog: catalog, since: sent, grace: .seconds(5))
        // An unreported state that held for the grace after the command counts too (the app
        // was already in front, and the TV says nothing new).
        try await Task.sleep(for: .milliseconds(20))
        let relaunched = ContinuousClock.now
        try await watcher.wait(for: .app("youtube"), within: .seconds(2), catalog: catalog, since: relaunched, grace: .milliseconds(100))
        #expect(ContinuousClock.now - relaunched >= .milliseconds(100))
        feed.finish()
    }
}
