import Foundation
import PhotonTestSupport
import Testing

/// Every public symbol of PhotonKit has a doc comment, or implements a protocol
/// requirement that has one (DocC shows that one): what library users read in the API
/// reference (`make docs`) is never an empty page. Reads the symbol graph the toolchain's
/// swift-symbolgraph-extract makes from the debug build (scripts/symbol-graphs.sh).
@Suite struct DocCommentTests {
    @Test func everyPublicSymbolOfPhotonKitIsDocumented() async throws {
        let output = try TestEnvironment.temporaryDirectory("photon-symbol-graphs")
        defer { try? FileManager.default.removeItem(at: output) }
        let extract = try TestProcess(
            "/bin/bash", [TestEnvironment.repositoryRoot.appendingPathComponent("scripts/symbol-graphs.sh").path, output.path, "PhotonKit"])
        let status = await extract.waitForExit(timeout: .seconds(120))
        try #require(status == 0, "scripts/symbol-graphs.sh failed: \(extract.standardError)")

        let data = try Data(contentsOf: output.appendingPathComponent("PhotonKit.symbols.json"))
        let graph = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let symbols = try #require(graph["symbols"] as? [[String: Any]])
        let relationships = graph["relationships"] as? [[String: Any]] ?? []
        func id(_ symbol: [String: Any]) -> String { (symbol["identifier"] as? [String: Any])?["precise"] as? String ?? "" }
        func documented(_ symbol: [String: Any]) -> Bool {
            let lines = (symbol["docComment"] as? [String: Any])?["lines"] as? [[String: Any]] ?? []
            return lines.contains { !(($0["text"] as? String) ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
        }
        let byID = Dictionary(symbols.map { (id($0), $0) }, uniquingKeysWith: { first, _ in first })
        // A member that implements a requirement names it as its source of documentation.
        var inheritsFrom: [String: String] = [:]
        for relation in relationships {
            guard let source = relation["source"] as? String, let origin = relation["sourceOrigin"] as? [String: Any],
                let from = origin["identifier"] as? String
            else { continue }
            inheritsFrom[source] = from
        }
        #expect(symbols.count > 100, "the symbol graph holds only \(symbols.count) symbols")
        let undocumented = symbols.filter { symbol in
            if documented(symbol) { return false }
            // Inherited from another module's protocol (Equatable, Actor…) or a documented one.
            if let origin = inheritsFrom[id(symbol)] { return byID[origin].map { !documented($0) } ?? false }
            return true
        }.map { symbol -> String in
            let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
            let uri = ((symbol["location"] as? [String: Any])?["uri"] as? String ?? "").split(separator: "/").suffix(2).joined(separator: "/")
            return "\(path) (\(uri))"
        }.sorted()
        #expect(undocumented.isEmpty, "public symbols of PhotonKit without a doc comment:\n\(undocumented.joined(separator: "\n"))")
    }

    /// The landing article's "pair and drive a TV in ten lines" compiles against today's
    /// API (typechecked with the toolchain's swiftc against the debug build's modules).
    @Test func theLandingArticlesExampleCompiles() async throws {
        let root = TestEnvironment.repositoryRoot
        let article = try String(contentsOf: root.appendingPathComponent("Sources/PhotonKit/PhotonKit.docc/PhotonKit.md"), encoding: .utf8)
        let start = try #require(article.range(of: "```swift\nimport PhotonCore"))
        let end = try #require(article.range(of: "```", range: start.upperBound..<article.endIndex))
        let code = String(article[article.index(start.lowerBound, offsetBy: "```swift\n".count)..<end.lowerBound])
        let directory = try TestEnvironment.temporaryDirectory("photon-landing")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("main.swift")
        try code.write(to: file, atomically: true, encoding: .utf8)
        let swiftc = ["/opt/swift/usr/bin/swiftc"] + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swiftc" }
        let compiler = try #require(swiftc.first { FileManager.default.isExecutableFile(atPath: $0) }, "no swiftc")
        var arguments = ["-typecheck", "-swift-version", "6", file.path, "-I", root.appendingPathComponent(".build/debug/Modules").path]
        let sources = root.appendingPathComponent("Sources")
        for name in try FileManager.default.contentsOfDirectory(atPath: sources.path) where name.hasPrefix("C") {
            arguments += [
                "-I", sources.appendingPathComponent(name).path, "-I", sources.appendingPathComponent(name).appendingPathComponent("include").path,
            ]
        }
        let check = try TestProcess(compiler, arguments)
        check.closeStandardInput()
        let status = await check.waitForExit(timeout: .seconds(120))
        #expect(status == 0, "the landing article's example does not compile:\n\(check.standardError)")
    }
}
