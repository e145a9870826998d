// swift-tools-version:6.0
// An example of a brand adapter that lives in its own package and depends on Photon.
import PackageDescription

let package = Package(
    name: "CustomAdapter",
    dependencies: [.package(name: "Photon", path: "../..")],
    targets: [
        .target(name: "LineTV", dependencies: [.product(name: "PhotonCore", package: "Photon")]),
        .executableTarget(
            name: "custom-adapter-demo",
            dependencies: [
                "LineTV", .product(name: "PhotonCore", package: "Photon"), .product(name: "PhotonNet", package: "Photon"),
                .product(name: "PhotonCrypto", package: "Photon"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
