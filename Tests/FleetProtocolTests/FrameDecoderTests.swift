import FleetProtocol
import Testing

@Suite struct FrameDecoderTests {
    @Test func splitsFramesAcrossArbitraryChunkBoundaries() {
        var decoder = FrameDecoder(limit: 100)
        var frames: [[UInt8]] = []
        let stream: [UInt8] = Array("{\"a\":1}".utf8) + [0] + Array("{}".utf8) + [0] + Array("[".utf8)
        for byte in stream {
            for case .frame(let frame) in decoder.feed([byte]) { frames.append(frame) }
        }
        #expect(frames == [Array("{\"a\":1}".utf8), Array("{}".utf8)])
        #expect(decoder.pendingCount == 1)
    }

    @Test func aFrameOverTheLimitFailsOnceAndThenNothingMore() {
        var decoder = FrameDecoder(limit: 8)
        #expect(decoder.feed(Array(repeating: UInt8(ascii: "x"), count: 8)) == [])
        #expect(decoder.feed([UInt8(ascii: "x")]) == [.tooLarge])
        #expect(decoder.feed([0, 0]) == [])
    }

    @Test func aFrameExactlyAtTheLimitIsAccepted() {
        var decoder = FrameDecoder(limit: 4)
        #expect(decoder.feed(Array("abcd".utf8) + [0]) == [.frame(Array("abcd".utf8))])
    }
}
