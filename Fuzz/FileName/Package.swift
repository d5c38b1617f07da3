// swift-tools-version: 6.1
// The key -> cache file name fuzz target. DiskCacheFileName.swift needs swift-crypto's MD5, so
// this tiny package compiles that one library file (a symlink into Sources/WebImageLoading/Cache) with
// swift-crypto, instead of building the whole WebImage package under sanitizers.
// Built by Fuzz/build.sh with: swift build -c debug -Xswiftc -sanitize=fuzzer,address; main.swift
// starts libFuzzer through LLVMFuzzerRunDriver, as SwiftPM renames the executable's `main`.
import PackageDescription

let package = Package(
    name: "FuzzFileName",
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "FuzzFileName",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
