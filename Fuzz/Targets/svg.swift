import WebImageCodecs

/// SVG parse and render (librsvg): intrinsic size, thumbnail and byte-budget sizes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSVG(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzDecode(SVGCoder(), UnsafeRawBufferPointer(start: bytes, count: count), formats: [.svg])
    return 0
}
