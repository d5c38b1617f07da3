// swift-tools-version: 6.1
// The request-target fuzz target: a raw request target through the server's URL parser and job
// planner. The parser's and planner's files are symlinks into Sources/WebImageServer; the image
// layer they import as `WebImage` is the fuzz build's prebuilt WebImageCodecs archive
// (Fuzz/build/lib), which Fuzz/build.sh passes in with -I and the linker flags, so neither the
// server's network stack nor the whole package is built under sanitizers. swift-crypto is here for
// URL signatures. main.swift starts libFuzzer through LLVMFuzzerRunDriver.
import PackageDescription

let package = Package(
    name: "FuzzRequest",
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // `import WebImage` in the linked server files: the image layer, as the package's umbrella gives it.
        .target(name: "WebImage"),
        .executableTarget(
            name: "FuzzRequest",
            dependencies: ["WebImage", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
