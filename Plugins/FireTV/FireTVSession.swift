import AndroidKeys
import PhotonCore

/// A session with a Fire TV (or any Android device with network debugging) over one ADB
/// connection: each command is a shell command on a stream of its own. Keys through
/// `input keyevent`, text through `input text` (quoted, never run), apps through
/// `monkey`/`am start`, the app list through `pm`, power and the foreground app read from
/// `dumpsys` when the session opens, after a power key, and every `pollInterval`.
final class FireTVSession: KeySending, TextTyping, AppLaunching, AppListing, AcknowledgesCommands, HoldsStateReads {
    let capabilities = FireTVAdapter.maximumCapabilities
    var events: AsyncStream<TVEvent> { feed.stream }
    var catalogIDs: [String: [String]] { FireTVAdapter.appCatalogIDs }

    private let connection: ADBConnection
    private let feed = SessionEvents()
    private let context: AdapterContext
    private let commandTimeout: Duration
    private let tasks = Locked<[Task<Void, Never>]>([])
    /// The first state read waits for the command the session was opened for: each read
    /// is a `dumpsys` the device runs beside it.
    let stateReads: StateReadGate

    init(connection: ADBConnection, model: String?, vendor: String?, context: AdapterContext, pollInterval: Duration) {
        self.connection = connection
        self.context = context
        commandTimeout = max(context.timeout, .seconds(5))
        let stateReads = StateReadGate(for: context)
        self.stateReads = stateReads
        feed.yield(.deviceInfo(model: model, vendor: vendor, version: nil))
        let watcher = Task { [weak self] in
            let reason = await connection.waitForEnd()
            self?.finish(reason)
        }
        let poller = Task { [weak self, clock = context.clock] in
            do { try await stateReads.wait() } catch { return }
            while !Task.isCancelled {
                await self?.refreshState()
                guard pollInterval > .zero else { return }
                do { try await clock.sleep(for: pollInterval) } catch { return }
            }
        }
        tasks.withLock { $0 = [watcher, poller] }
    }

    // MARK: commands

    /// `input keyevent --longpress` is one long press of Android's own length: a hold
    /// asked for longer waits for nothing (newcomer #31: a 1 s hold took 1.08 s).
    var holdsForTheTimeAsked: Bool { false }

    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        let code = try Self.keyCode(input)
        switch action {
        case .press: _ = try await shell(ADBShellCommands.keyEvent(code))
        // `input` has no key-down/key-up: a hold is Android's long press, sent at its start.
        case .holdStart: _ = try await shell(ADBShellCommands.keyEvent(code, longPress: true))
        case .holdEnd: return
        }
        if case .key(let key) = input, [.power, .powerOn, .powerOff].contains(key) {
            let refresh = Task { [weak self] () -> Void in await self?.refreshState() }
            tasks.withLock { $0.append(refresh) }
        }
    }

    func type(_ text: String) async throws {
        let commands = try ADBShellCommands.typing(text)
        guard !commands.isEmpty else { return }
        _ = try await shell(commands.joined(separator: "; "))
    }

    func launch(_ app: String) async throws {
        let command = try ADBShellCommands.launch(app)
        let output = try await shell(command)
        // monkey and am print errors and still exit 0 through the legacy shell.
        if output.contains("No activities found to run") || output.contains("monkey aborted") {
            throw PhotonError(
                .notFound, "the device has no app '\(Redaction.sanitize(app))' to start; nothing was started",
                hint: "`photon apps TV` lists what it has")
        }
        if output.contains("Error:") || output.contains("Exception") {
            throw PhotonError(.notFound, "the device could not open '\(Redaction.sanitize(app))': \(Redaction.sanitize(String(output.prefix(200))))")
        }
    }

    func installedApps() async throws -> [TVApp] {
        let output = try await shell(ADBShellCommands.packages)
        let names = Dictionary(
            FireTVAdapter.appCatalogIDs.flatMap { key, ids in ids.map { ($0, AppCatalog.entries.first { $0.key == key }?.name ?? key) } },
            uniquingKeysWith: { first, _ in first })
        return output.split(whereSeparator: \.isNewline).compactMap { line -> TVApp? in
            guard line.hasPrefix("package:") else { return nil }
            let id = String(line.dropFirst("package:".count)).trimmingCharacters(in: .whitespaces)
            guard ADBShellCommands.isPackageName(id) else { return nil }
            return TVApp(id: id, name: names[id] ?? id)
        }.sorted { $0.id < $1.id }
    }

    /// Every command is answered: its shell stream closes once the command has run.
    func acknowledges(_ command: RemoteCommand) -> Bool { true }

    // MARK: state

    /// Reads power and the foreground app and reports them (what the device exposes; an
    /// unreadable answer reports nothing).
    func refreshState() async {
        guard !feed.isEnded else { return }
        if let output = try? await shell(ADBShellCommands.power), let (state, reason) = FireTVStateParsing.power(output) {
            // The detail first, so a status that waits for `power` has both.
            feed.yield(.powerState(state, reason: reason))
            feed.yield(.power(isOn: state == .on))
        }
        if let output = try? await shell(ADBShellCommands.foreground), let app = FireTVStateParsing.foreground(output) {
            feed.yield(.currentApp(app))
        }
    }

    // MARK: plumbing

    static func keyCode(_ input: KeyInput) throws -> String {
        let number = try AndroidKeyCodes.resolve(input)
        return AndroidKeyCodes.name(of: number)
    }

    private func shell(_ command: String) async throws -> String {
        try feed.checkOpen("the device")
        return try await connection.shell(command, timeout: CommandDeadline.remaining(cap: commandTimeout))
    }

    private func finish(_ reason: PhotonError?) { feed.end(reason) }

    func close() async {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        let wasOpen = !feed.isEnded
        await connection.close()
        if wasOpen { feed.end(nil) }
    }
}
