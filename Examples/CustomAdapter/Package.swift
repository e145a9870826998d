// swift-tools-version:6.0
// A brand adapter in its own package, built on Photon: the adapter, its emulated TV, and a
// host that registers it with one line, runs Photon's conformance suite against the
// emulator, and drives it through the PhotonKit façade.
import PackageDescription

let package = Package(
    name: "CustomAdapter",
    dependencies: [.package(name: "Photon", path: "../..")],
    targets: [
        // The adapter: PhotonCore only, like every brand under Plugins/.
        .target(name: "LineTV", dependencies: [.product(name: "PhotonCore", package: "Photon")]),
        // Its emulated TV: the adapter's codec, PhotonNet to listen, the emulator protocols.
        .target(
            name: "LineTVEmulator",
            dependencies: [
                "LineTV", .product(name: "PhotonCore", package: "Photon"), .product(name: "PhotonNet", package: "Photon"),
                .product(name: "PhotonEmulatorSupport", package: "Photon"), .product(name: "PhotonArguments", package: "Photon"),
            ]),
        .executableTarget(
            name: "custom-adapter-demo",
            dependencies: [
                "LineTV", "LineTVEmulator", .product(name: "PhotonKit", package: "Photon"), .product(name: "PhotonPlugins", package: "Photon"),
                .product(name: "PhotonEmulatorPlugins", package: "Photon"),
                .product(name: "PhotonConformance", package: "Photon"), .product(name: "PhotonEmulatorSupport", package: "Photon"),
                .product(name: "PhotonCore", package: "Photon"), .product(name: "PhotonStore", package: "Photon"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
