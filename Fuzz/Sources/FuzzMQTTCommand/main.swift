import Foundation
import PhotonCore
import PhotonService

// A message the MQTT bridge receives: the first line is the topic, the rest the payload.
// The topic is matched as the bridge matches it, then the payload read as a command.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let topic = String(text.prefix { $0 != "\n" })
    let payload = String(text.dropFirst(topic.count + 1))
    let topics = MQTTTopics(site: "fuzz", prefix: "homeassistant")
    guard let (_, name) = topics.parseCommandTopic(topic) else { return 0 }
    let apps = [TVApp(id: "netflix", name: "Netflix"), TVApp(id: "youtube", name: "YouTube")]
    if let command = try? MQTTCommand.parse(name: name, payload: payload, apps: apps, now: Date(timeIntervalSince1970: 1_800_000_000)) {
        precondition(!command.commands.isEmpty, "a command that sends nothing")
        for sent in command.commands {
            if case .setVolume(let level) = sent { precondition((0...100).contains(level), "a volume out of range") }
        }
    }
    return 0
}
