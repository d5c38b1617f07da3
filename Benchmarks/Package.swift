// swift-tools-version: 6.1
import PackageDescription

// Micro benchmarks for WebImage (ordo-one/package-benchmark). Kept in its own package so the main
// package builds fast. Run: `cd Benchmarks && swift package benchmark`.
let package = Package(
    name: "WebImageBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WebImage", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1",
                 traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "WebImageBenchmarks",
            dependencies: [
                .product(name: "WebImage", package: "WebImage"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/WebImageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
