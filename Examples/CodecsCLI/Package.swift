// swift-tools-version: 6.1
import PackageDescription

// A command-line tool on WebImageCodecs alone: no network stack, no server.
let package = Package(
    name: "CodecsCLI",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WebImage", path: "../.."),
    ],
    targets: [
        // What the tool does, as functions the tests call.
        .target(name: "CodecsCLIKit", dependencies: [.product(name: "WebImageCodecs", package: "WebImage")]),
        .executableTarget(name: "codecs-cli", dependencies: ["CodecsCLIKit"]),
        .testTarget(name: "CodecsCLITests",
                    dependencies: ["CodecsCLIKit", .product(name: "WebImageCodecs", package: "WebImage")]),
    ],
    swiftLanguageModes: [.v6]
)
