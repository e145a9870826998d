import PhotonCore
import PhotonHAP
import PhotonJSON

// What a HomeKit controller sends the door: HTTP requests (whole and split), the
// encrypted frames around them after pair-verify, and TLV8 pairing bodies.
let sessionSecret = [UInt8](repeating: 7, count: 32)
let television = HAPTelevision(
    name: "TV", manufacturer: "Photon", model: "Fuzz", serialNumber: "1",
    inputs: [.init(identifier: 1, name: "HDMI 1", kind: 3), .init(identifier: 2, name: "Netflix", kind: 10)], hasVolumeLevel: true
).accessory

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    // Requests: the same ones whether the bytes come at once or in two pieces, each within
    // the limits, and the reader never holds more than a head and a body.
    func requests(_ pieces: [ArraySlice<UInt8>]) -> [HAPRequest] {
        var reader = HAPRequestReader()
        var seen: [HAPRequest] = []
        for piece in pieces {
            reader.append(Array(piece))
            while let request = try? reader.next() {
                precondition(request.body.count <= HAPRequestReader.maximumBody, "a body over the limit")
                seen.append(request)
            }
        }
        return seen
    }
    let whole = requests([bytes[...]])
    for split in stride(from: 0, through: bytes.count, by: max(1, bytes.count / 8)) {
        let pieces = requests([bytes[..<split], bytes[split...]])
        // A reader stops at its first error; split feeding may reach it later, never
        // read a request the whole feed did not.
        precondition(pieces.count <= whole.count && Array(whole.prefix(pieces.count)) == pieces, "split feeding changed the requests")
    }
    // Frames: untrusted bytes never open (no key), are refused or wait, and never crash;
    // the bytes as a message survive sealing and opening, in pieces.
    if var accessory = try? HAPSessionCipher(accessoryWithSharedSecret: sessionSecret) {
        _ = try? accessory.open(bytes)
        precondition(accessory.bufferedCount <= 2 + HAPSessionCipher.maximumFrame + 16, "the cipher held more than a frame")
    }
    if var controller = try? HAPSessionCipher(controllerWithSharedSecret: sessionSecret),
        var accessory = try? HAPSessionCipher(accessoryWithSharedSecret: sessionSecret), let sealed = try? controller.seal(bytes)
    {
        let half = sealed.count / 2
        let opened = (try? accessory.open(Array(sealed[..<half]))).flatMap { first in
            (try? accessory.open(Array(sealed[half...]))).map { first + $0 }
        }
        precondition(opened == bytes, "a sealed message did not open to itself")
    }
    // A write's JSON (`PUT /characteristics`): whatever a characteristic accepts is within
    // its format and limits.
    if let document = try? JSONValue.parse(bytes, maximumDepth: 8), let items = document["characteristics"]?.arrayValue {
        for item in items.prefix(32) {
            guard let iid = item["iid"]?.intValue, let characteristic = television.characteristic(iid), let raw = item["value"],
                let value = characteristic.accepting(raw)
            else { continue }
            switch value {
            case .int(let number):
                precondition(characteristic.minimum.map { Double(number) >= $0 } ?? true, "under the minimum")
                precondition(characteristic.maximum.map { Double(number) <= $0 } ?? true, "over the maximum")
                precondition(characteristic.validValues.map { $0.contains(number) } ?? true, "not a valid value")
            case .string(let text): precondition(text.utf8.count <= (characteristic.maximumLength ?? 64), "a string over its length")
            case .float(let number): precondition(number.isFinite, "a float that is not finite")
            case .bool: precondition(characteristic.format == .bool, "a bool for another format")
            }
            _ = HAPTelevision.request(writing: value, to: iid)
        }
    }
    // TLV8: items survive encoding and decoding.
    if let tlv = try? TLV8.decode(bytes) {
        precondition((try? TLV8.decode(tlv.encoded)) == tlv, "TLV8 round trip changed the items")
    }
    return 0
}
