// swift-tools-version:5.4
// Photon's fuzz targets: one libFuzzer executable per parser of untrusted bytes.
// A separate package with tools 5.4 because SwiftPM 5.5+ renames an executable's entry
// point and cannot link a `-parse-as-library` fuzz target (swift-package-manager #8731);
// it depends on the root package by path, whose code is then instrumented too.
// Build and run with `make fuzz` (see Fuzz/run.sh and docs/testing.md).
import PackageDescription

let core: Target.Dependency = .product(name: "PhotonCore", package: "Photon")
let net: Target.Dependency = .product(name: "PhotonNet", package: "Photon")
let json: Target.Dependency = .product(name: "PhotonJSON", package: "Photon")
let androidTV: Target.Dependency = .product(name: "AndroidTV", package: "Photon")
let samsung: Target.Dependency = .product(name: "SamsungTV", package: "Photon")
let service: Target.Dependency = .product(name: "PhotonService", package: "Photon")
let kit: Target.Dependency = .product(name: "PhotonKit", package: "Photon")
let roku: Target.Dependency = .product(name: "Roku", package: "Photon")
let sony: Target.Dependency = .product(name: "Sony", package: "Photon")
let vizio: Target.Dependency = .product(name: "Vizio", package: "Photon")
let philips: Target.Dependency = .product(name: "Philips", package: "Photon")
let lg: Target.Dependency = .product(name: "LGWebOS", package: "Photon")
let fireTV: Target.Dependency = .product(name: "FireTV", package: "Photon")
let fireTVEmulator: Target.Dependency = .product(name: "FireTVEmulator", package: "Photon")
let appleTV: Target.Dependency = .product(name: "AppleTV", package: "Photon")
let hap: Target.Dependency = .product(name: "PhotonHAP", package: "Photon")
let store: Target.Dependency = .product(name: "PhotonStore", package: "Photon")

let package = Package(
    name: "PhotonFuzz",
    dependencies: [.package(name: "Photon", path: "..")],
    targets: [
        .executableTarget(name: "FuzzHTTPResponse", dependencies: [core]),
        .executableTarget(name: "FuzzHTTPRequest", dependencies: [core, net, service]),
        .executableTarget(name: "FuzzHTTPDoorClients", dependencies: [core, service]),
        .executableTarget(name: "FuzzWebSocketFrames", dependencies: [core, net]),
        .executableTarget(name: "FuzzVoiceStream", dependencies: [core, net, service]),
        .executableTarget(name: "FuzzAndroidTVMessages", dependencies: [core, androidTV]),
        .executableTarget(name: "FuzzCertificateSubject", dependencies: [core, androidTV]),
        .executableTarget(name: "FuzzSamsungEvent", dependencies: [core, samsung]),
        .executableTarget(name: "FuzzSamsungDeviceInfo", dependencies: [core, samsung]),
        .executableTarget(name: "FuzzSamsungArt", dependencies: [core, samsung]),
        .executableTarget(name: "FuzzJSON", dependencies: [json]),
        .executableTarget(name: "FuzzStoreFiles", dependencies: [core, store]),
        .executableTarget(name: "FuzzDaemonRequest", dependencies: [core, json, kit]),
        .executableTarget(name: "FuzzSSDP", dependencies: [core]),
        .executableTarget(name: "FuzzWAV", dependencies: [core]),
        .executableTarget(name: "FuzzMDNSTXT", dependencies: [core]),
        .executableTarget(name: "FuzzMAC", dependencies: [core]),
        .executableTarget(name: "FuzzRokuXML", dependencies: [core, roku]),
        .executableTarget(name: "FuzzSonyAnswers", dependencies: [core, sony]),
        .executableTarget(name: "FuzzVizioAnswers", dependencies: [core, vizio]),
        .executableTarget(name: "FuzzPhilipsAnswers", dependencies: [core, philips]),
        .executableTarget(name: "FuzzLGMessages", dependencies: [core, lg]),
        .executableTarget(name: "FuzzMQTTCommand", dependencies: [core, service]),
        .executableTarget(name: "FuzzADBMessages", dependencies: [core, fireTV, fireTVEmulator]),
        .executableTarget(name: "FuzzCompanionMessages", dependencies: [core, appleTV, hap]),
        .executableTarget(name: "FuzzHAPMessages", dependencies: [core, hap, json]),
        .executableTarget(name: "FuzzBinaryPlist", dependencies: [core, appleTV]),
        .executableTarget(name: "FuzzDNSSD", dependencies: [core]),
    ]
)
