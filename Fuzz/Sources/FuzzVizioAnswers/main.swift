import PhotonCore
import Vizio

// What the Vizio adapter reads from a SmartCast TV: an answer and its status, then every
// reading made of it (items and HASHVALs, power, volume, inputs, the app in front, the
// serial, the model). Each either reads or throws; what it reads stays within its bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let (answer, status) = try? VizioStatus.read(bytes, what: "fuzz") else { return 0 }
    _ = status.failure(what: "fuzz")
    for item in VizioItem.items(answer) {
        precondition(!item.cname.isEmpty && item.cname.utf8.count <= 64, "an unbounded CNAME was read")
        precondition(item.elements.allSatisfy(VizioReadings.isName), "a choice that cannot be sent back was read")
    }
    _ = try? VizioReadings.power(answer)
    if let volume = try? VizioReadings.volume(answer, muted: false) {
        precondition((0...100).contains(volume.level), "a volume out of range was read")
    }
    for input in VizioReadings.inputs(answer, current: nil) {
        precondition(VizioReadings.isName(input.id), "an input name that cannot be sent back was read")
    }
    if let app = VizioReadings.currentApp(answer) { precondition((try? VizioApp(parsing: app)) != nil, "an app id that does not parse was read") }
    if let serial = VizioReadings.serial(answer) {
        precondition(serial.utf8.allSatisfy(\.isASCIIAlphanumeric), "a serial with other characters was read")
    }
    _ = VizioReadings.model(answer)
    return 0
}
