import Dispatch
import Foundation
import Glibc
import PhotonCore
import PhotonNet
import PhotonKit
import PhotonService

/// `photon serve`: the daemon. Keeps warm sessions to the TVs its clients use and serves
/// the local socket API; other `photon` commands of this home use it while it runs.
enum ServeCommand {
    static let spec = CommandSpec(
        ["serve"], summary: "run the daemon: warm sessions and the local socket API", arguments: "",
        minimumArguments: 0, maximumArguments: 0,
        options: [OptionSpec("preconnect", help: "connect to every paired TV at start, not on first use")],
        details: """
            Listens on photon.sock in the runtime directory ($XDG_RUNTIME_DIR/photon, or DIR/run with --home): \
            a 0600 socket in a 0700 directory, used only by this user. Stops cleanly on SIGTERM or SIGINT; \
            SIGHUP re-reads the paired TVs. \
            docs/daemon.md describes the JSON-lines API and a systemd user unit.
            """,
        examples: ["photon serve", "photon serve --preconnect -v", "photon --home /tmp/photon-test serve --json"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        EventLoop.raiseDescriptorLimit()
        let terminal = context.terminal
        let log = ServiceLog(
            notice: { line in terminal.writeError("photon serve: \(line)\n") }, debug: context.log)
        let factory = SessionFactory(store: context.store, registry: context.registry, timeout: context.timeout, log: context.log, cachesStore: true)
        let server = ServiceServer(factory: factory, log: log)
        try server.start()
        let stop = Promise<Int32>()
        let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.succeed(number) }
            source.resume()
            return source
        }
        signal(SIGHUP, SIG_IGN)
        let reload = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        reload.setEventHandler { Task { await server.reload() } }
        reload.resume()
        defer {
            signals.forEach { $0.cancel() }
            reload.cancel()
        }
        context.emit(
            .object([("event", "ready"), ("socket", .string(server.socketPath)), ("pid", .int(Int(getpid())))]),
            text: "Serving on \(server.socketPath) (pid \(getpid())). Stop with Ctrl-C or SIGTERM.")
        let accepting = Task { await server.run() }
        if parsed.flag("preconnect") {
            Task { try? await server.preconnect() }
        }
        let number = try await stop.value()
        log.notice("stopping (\(number == SIGINT ? "SIGINT" : "SIGTERM"))")
        await server.stop()
        await accepting.value
        return 0
    }
}
