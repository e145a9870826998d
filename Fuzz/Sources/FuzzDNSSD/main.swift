import PhotonCore

// Unicast DNS-SD: answers a host sends back to `photon probe`, and the queries the emulated
// TVs' responder reads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    if let services = try? DNSSD.services(in: bytes, sender: "127.0.0.1") {
        precondition(services.count <= DNSSD.maximumRecords, "more services than records")
        for service in services {
            precondition(service.name.count <= 64 && service.host.count <= 64, "an unbounded name passed")
            precondition(!service.addresses.isEmpty, "a service without an address")
        }
    }
    if let (_, types) = try? DNSSD.questions(in: bytes) {
        precondition(types.allSatisfy { $0.utf8.count <= 255 }, "a type over 255 bytes")
    }
    return 0
}
