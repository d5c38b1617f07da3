// swift-tools-version: 6.1
import PackageDescription

// A Vapor 4 app whose route fetches remote avatars with ImageManager, thumbnails and caches them.
let package = Package(
    name: "VaporAvatars",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WebImage", path: "../.."),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        // The application: the avatar route and the ImageManager behind it.
        .target(name: "AvatarsApp", dependencies: [
            .product(name: "WebImage", package: "WebImage"),
            .product(name: "Vapor", package: "vapor"),
        ]),
        .executableTarget(name: "vapor-avatars", dependencies: ["AvatarsApp"]),
        .testTarget(name: "AvatarsAppTests", dependencies: [
            "AvatarsApp",
            .product(name: "WebImage", package: "WebImage"),
            .product(name: "VaporTesting", package: "vapor"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
