import CJXL
import Foundation

/// One libjxl decoder over one JPEG XL file held in memory, driven event by event: the basic info
/// (where limits are checked, before any pixel memory exists), the colour encoding (where the
/// output colour space is chosen, ``JXLColor``), then whole frames written into the caller's
/// buffers as straight-alpha RGBA8.
///
/// libjxl's defaults are kept where they suit display: orientation applied (the basic info then
/// reports the oriented size) and zero-duration frames coalesced into the frame they build, so
/// every frame has the image's size. Premultiplied alpha is divided out. Each decode runs on its
/// caller's thread (``JXLSerialRunner``), since a server decodes several images at once on few
/// cores and a thread pool per decode would oversubscribe them; it stops between libjxl's tasks
/// when the thread's ``WorkCancellation`` is cancelled.
final class JXLDecodeSession {
    /// The libjxl decoder.
    let decoder: OpaquePointer
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The copy of the file a long-lived session reads (an animation's frame decoder); nil when
    /// the caller's bytes outlive the session.
    private let ownedCopy: UnsafeMutableBufferPointer<UInt8>?
    /// The basic info, once ``readBasicInfo()`` has run.
    private(set) var info = JxlBasicInfo()
    /// The index of the black (K) extra channel of a CMYK file; nil for other files.
    private(set) var blackChannel: UInt32?
    /// How many frames have been written out or skipped since the start.
    private(set) var framesPassed = 0

    static let pixelFormat = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8,
                                            endianness: JXL_NATIVE_ENDIAN, align: 0)

    /// A decoder over `bytes` (which must outlive it) that stops at `events`.
    convenience init(_ bytes: UnsafeBufferPointer<UInt8>, events: [JxlDecoderStatus]) throws {
        try self.init(bytes, owned: nil, events: events)
    }

    /// A decoder over its own copy of `data`, for as long as it lives.
    convenience init(copying data: Data, events: [JxlDecoderStatus]) throws {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: data.count)
        _ = copy.initialize(from: data)
        try self.init(UnsafeBufferPointer(copy), owned: copy, events: events)
    }

    private init(_ bytes: UnsafeBufferPointer<UInt8>, owned: UnsafeMutableBufferPointer<UInt8>?,
                 events: [JxlDecoderStatus]) throws {
        guard let decoder = JxlDecoderCreate(nil) else {
            owned?.deallocate()
            throw JXLFailure.outOfMemory("a decoder")
        }
        self.decoder = decoder
        self.bytes = bytes
        self.ownedCopy = owned
        let wanted = events.reduce(0) { $0 | Int32($1.rawValue) }
        guard JxlDecoderSubscribeEvents(decoder, wanted) == JXL_DEC_SUCCESS,
              JxlDecoderSetUnpremultiplyAlpha(decoder, 1) == JXL_DEC_SUCCESS,
              JxlDecoderSetParallelRunner(decoder, JXLSerialRunner.run, nil) == JXL_DEC_SUCCESS else {
            throw JXLFailure.corrupt(while: "setting up its decoder")
        }
        try setInput()
    }

    deinit {
        JxlDecoderDestroy(decoder)
        ownedCopy?.deallocate()
    }

    private func setInput() throws {
        guard JxlDecoderSetInput(decoder, bytes.baseAddress, bytes.count) == JXL_DEC_SUCCESS else {
            throw JXLFailure.corrupt(while: "taking its input")
        }
        // The whole file is here: running out of input means the file is truncated.
        JxlDecoderCloseInput(decoder)
    }

    /// Goes back to the start of the file (libjxl keeps what it learnt of the frames, so frames
    /// are skipped cheaply); the basic info and colour encoding events come again.
    func rewind() throws {
        JxlDecoderRewind(decoder)
        framesPassed = 0
        try setInput()
    }

    /// Makes the next frame written out the one `count` frames later.
    func skipFrames(_ count: Int) {
        guard count > 0 else { return }
        JxlDecoderSkipFrames(decoder, count)
        framesPassed += count
    }

    /// Runs to the basic info and returns it.
    @discardableResult
    func readBasicInfo() throws -> JxlBasicInfo {
        try expect(JXL_DEC_BASIC_INFO, while: "reading the header")
        guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
            throw JXLFailure.corrupt(while: "reading the header")
        }
        blackChannel = nil
        for index in 0..<info.num_extra_channels {
            var extra = JxlExtraChannelInfo()
            if JxlDecoderGetExtraChannelInfo(decoder, Int(index), &extra) == JXL_DEC_SUCCESS,
               extra.type == JXL_CHANNEL_BLACK {
                blackChannel = index
                break
            }
        }
        return info
    }

    /// The size of every frame as shown (libjxl applies the orientation).
    var size: PixelSize { PixelSize(width: Int(info.xsize), height: Int(info.ysize)) }

    /// Runs to the colour encoding, where ``JXLColor`` reads it and picks the output space.
    func readColorEncoding() throws {
        try expect(JXL_DEC_COLOR_ENCODING, while: "reading the colour encoding")
    }

    /// Writes the next frame into `buffer` (RGBA8, ``size``), converted by `color`. A CMYK file's
    /// black channel is decoded beside it and applied (``JXLBlack``): libjxl 0.7 leaves K to the
    /// application.
    func decodeFrame(into buffer: UnsafeMutableBufferPointer<UInt8>, color: ColorManagement.Plan) throws {
        let action = "decoding frame \(framesPassed + 1)"
        try expect(JXL_DEC_NEED_IMAGE_OUT_BUFFER, while: action)
        var format = Self.pixelFormat
        var needed = 0
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed == buffer.count,
              JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS else {
            throw JXLFailure.corrupt(while: "\(action) (its size is not the image's \(size))")
        }
        guard let blackChannel else {
            try expect(JXL_DEC_FULL_IMAGE, while: action)
            framesPassed += 1
            color.apply(buffer)
            return
        }
        let black = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: buffer.count / 4)
        defer { black.deallocate() }
        black.initialize(repeating: 255)
        var blackFormat = JxlPixelFormat(num_channels: 1, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var blackNeeded = 0
        guard JxlDecoderExtraChannelBufferSize(decoder, &blackFormat, &blackNeeded, blackChannel) == JXL_DEC_SUCCESS,
              blackNeeded == black.count,
              JxlDecoderSetExtraChannelBuffer(decoder, &blackFormat, black.baseAddress, black.count, blackChannel) == JXL_DEC_SUCCESS else {
            throw JXLFailure.corrupt(while: "\(action) (its black channel is not the image's \(size))")
        }
        try expect(JXL_DEC_FULL_IMAGE, while: action)
        framesPassed += 1
        JXLBlack.apply(UnsafeBufferPointer(black), to: buffer, color: color)
    }

    /// The next frame as a bitmap of ``size``.
    func decodeFrame(color: ColorManagement.Plan) throws -> Bitmap {
        try Bitmap(width: size.width, height: size.height) { try decodeFrame(into: $0, color: color) }
    }

    /// The header of the next frame, nil at the end of the file (for a decoder that stops at
    /// frame events only: no pixels are decoded).
    func nextFrameHeader() throws -> JxlFrameHeader? {
        let status = try process(while: "reading the header of frame \(framesPassed + 1)")
        if status == JXL_DEC_SUCCESS { return nil }
        guard status == JXL_DEC_FRAME else {
            throw JXLFailure.corrupt(while: "reading the header of frame \(framesPassed + 1)")
        }
        var header = JxlFrameHeader()
        guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else {
            throw JXLFailure.corrupt(while: "reading the header of frame \(framesPassed + 1)")
        }
        framesPassed += 1
        return header
    }

    /// Runs libjxl until its next event, which must be `event`.
    private func expect(_ event: JxlDecoderStatus, while action: String) throws {
        let status = try process(while: action)
        guard status == event else {
            if status == JXL_DEC_SUCCESS {
                throw WebImageError.badData("The JPEG XL file ended after \(framesPassed) frame(s) while \(action).")
            }
            throw JXLFailure.corrupt(while: action)
        }
    }

    private func process(while action: String) throws -> JxlDecoderStatus {
        let status = JxlDecoderProcessInput(decoder)
        if status == JXL_DEC_ERROR {
            try WorkCancellation.checkCurrent()
            throw JXLFailure.corrupt(while: action)
        }
        if status == JXL_DEC_NEED_MORE_INPUT { throw JXLFailure.truncated(while: action) }
        return status
    }
}
