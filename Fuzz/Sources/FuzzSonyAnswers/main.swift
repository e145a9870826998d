import PhotonCore
import Sony

// What the Sony adapter reads from a Bravia: a JSON-RPC answer, then every reading made of
// its result (system information, power, volume, inputs, apps, sound output, channels,
// the key table). Each either reads or throws; what it reads stays within its bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard case .result(let result) = try? SonyAnswer.parse(bytes, what: "fuzz") else { return 0 }
    if let info = try? SonySystemInformation.parse(result) {
        precondition(info.serial.utf8.count <= 64 && info.deviceID.hasPrefix("sony-"), "an unbounded serial was read")
    }
    _ = try? SonyReadings.power(result)
    if let volume = try? SonyReadings.volume(result) {
        precondition(volume.level >= 0 && volume.level <= volume.maximum, "a volume outside its range was read")
    }
    for input in (try? SonyReadings.inputs(result)) ?? [] {
        precondition(SonyReadings.isPlayableURI(input.id), "an input uri that cannot be sent back was read")
    }
    for app in (try? SonyReadings.apps(result)) ?? [] {
        precondition(SonyReadings.isPlayableURI(app.id), "an app uri that cannot be sent back was read")
    }
    _ = try? SonyReadings.soundOutputs(result)
    for channel in (try? SonyReadings.channels(result)) ?? [] {
        precondition(SonyReadings.isPlayableURI(channel.id) && (try? ChannelNumber(parsing: channel.number)) != nil, "an unusable channel was read")
    }
    for (_, code) in (try? SonyKeys.parseTable(result)) ?? [:] {
        precondition(SonyKeys.isIRCCCode(code), "an IRCC code that could escape the SOAP body was read")
    }
    return 0
}
