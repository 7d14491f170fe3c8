import Testing
@testable import UploadPlanner

@Suite struct TransferPlannerTests {
    let planner = TransferPlanner()

    @Test func chunkCountIsCeiling() {
        #expect(InlineFileMode.chunkCount(fileSize: 0) == 0)
        #expect(InlineFileMode.chunkCount(fileSize: 1) == 1)
        #expect(InlineFileMode.chunkCount(fileSize: 15_780) == 1)
        #expect(InlineFileMode.chunkCount(fileSize: 15_781) == 2)
        #expect(InlineFileMode.chunkCount(fileSize: 94_680) == 6)
    }

    /// Voice: up to 6 chunks is sent inline while chunks × recipients ≤ 30.
    @Test(arguments: [
        (1, 94_680, InlineFileMode.sent, TransferPlan.Method.smpInline),   // 6 chunks × 1
        (5, 94_680, .sent, .smpInline),                                    // 6 × 5 = 30
        (6, 94_680, .offer, .xftp),                                        // 6 × 6 = 36 > 30
        (7, 78_900, .offer, .xftp),                                        // 5 × 7 = 35 > 30
        (6, 78_900, .sent, .smpInline),                                    // 5 × 6 = 30
        (1, 94_681, .offer, .xftp),                                        // 7 chunks
    ])
    func voiceInlineRules(recipients: Int, size: Int64, mode: InlineFileMode, method: TransferPlan.Method) {
        let p = planner.plan(size: size, kind: .voice, fileName: "voice_20261122_120000.m4a", recipients: recipients)
        #expect(p.inlineMode == mode)
        #expect(p.method == method)
        if method == .smpInline { #expect(p.chunkSizes.isEmpty && p.encryptedSize == 0) }
        if method == .xftp { #expect(!p.chunkSizes.isEmpty && p.recipientKeys >= 4) }
    }

    @Test func imagesAreOfferedNeverSent() {
        let p = planner.plan(size: 20_000, kind: .image, fileName: "IMG_20261122_120000.jpg")
        #expect(p.inlineMode == .offer)
        #expect(p.method == .xftp)
        let big = planner.plan(size: 15_780 * 15 + 1, kind: .image, fileName: "IMG.jpg")
        #expect(big.inlineMode == nil)  // 16 chunks: not even offered inline
    }

    @Test func xftpLimitIsOneGiB() {
        let at = planner.plan(size: 1_073_741_824, kind: .file, fileName: "f")
        #expect(at.method == .xftp)
        #expect(at.encryptedSize == 1_074_790_400)
        let over = planner.plan(size: 1_073_741_825, kind: .file, fileName: "f")
        #expect(over.method == .rejected)
        #expect(over.reason?.contains("1073741824") == true)
    }

    @Test func noXFTPAllowsEightMillionBytes() {
        let smp = TransferPlanner(xftpAvailable: false)
        let at = smp.plan(size: 8_000_000, kind: .video, fileName: "VID.mp4")
        #expect(at.method == .smp)
        #expect(at.inlineMode == nil)
        #expect(at.chunkSizes.isEmpty)
        let over = smp.plan(size: 8_000_001, kind: .video, fileName: "VID.mp4")
        #expect(over.method == .rejected)
        #expect(over.reason != nil)
        let voice = smp.plan(size: 30_000, kind: .voice, fileName: "voice.m4a")
        #expect(voice.method == .smpInline && voice.inlineMode == .sent)
    }

    @Test func encryptedFilesAlwaysUseXFTP() {
        let p = planner.plan(size: 30_000, kind: .voice, fileName: "voice.m4a", encrypted: true)
        #expect(p.method == .xftp)
    }

    @Test func noRecipientsStaysOnSMP() {
        let p = planner.plan(size: 5_000_000, kind: .file, fileName: "f", recipients: 0)
        #expect(p.method == .smp)
    }

    @Test func transferJSONHasTheSpecFields() {
        let p = planner.plan(size: 261_120, kind: .image, fileName: "IMG_20261122_120000.jpg")
        #expect(p.json.serialized == #"{"method":"xftp","inlineMode":null,"chunkSizes":[262144],"encryptedSize":262144,"padding":975,"reason":null,"smpChunks":17,"recipientKeys":4}"#)
    }

    @Test func planningIsFast() {
        // Not a timing assertion (machines are noisy): a smoke check that a million plans complete.
        var total: Int64 = 0
        for i in 0..<100_000 {
            total &+= planner.plan(size: Int64(i) * 10_007, kind: .file, fileName: "file.bin").encryptedSize
        }
        #expect(total > 0)
    }

    /// `refusal` (checked before a file is named) says no exactly when `plan` rejects, in the same words.
    @Test func refusalAgreesWithThePlan() {
        for xftp in [true, false] {
            let planner = TransferPlanner(xftpAvailable: xftp)
            for size: Int64 in [-1, 0, 1, 15_000, 260_000, 1_047_552, 8_388_608, 1_073_741_824, 1_073_741_825, 4_000_000_000] {
                for kind in UploadContentKind.allCases {
                    for recipients in [0, 1, 5] {
                        let plan = planner.plan(size: size, kind: kind, fileName: "IMG_20260101_000000.jpg", recipients: recipients)
                        #expect(planner.refusal(size: size, kind: kind, recipients: recipients) == (plan.method == .rejected ? plan.reason : nil))
                    }
                }
            }
        }
    }
}
