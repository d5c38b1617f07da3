// swift-tools-version: 6.1
import PackageDescription

// A Hummingbird 2 app with the image server's routes mounted beside its own.
let package = Package(
    name: "HummingbirdGallery",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WebImage", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // The application: its routes, the mounted image server, the sample photos.
        .target(name: "GalleryApp", dependencies: [
            .product(name: "WebImageServer", package: "WebImage"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        .executableTarget(name: "hummingbird-gallery", dependencies: ["GalleryApp"]),
        .testTarget(name: "GalleryAppTests", dependencies: [
            "GalleryApp",
            .product(name: "WebImage", package: "WebImage"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
