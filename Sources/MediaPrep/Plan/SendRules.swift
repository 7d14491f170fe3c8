import UploadPlanner

/// Everything a decision about one input depends on, shared by `prepare` and `check` so that both
/// read the same limits from the same place.
package struct SendRules: Sendable {
    package var profile: ImageProfile = .simplex
    package var limits: SimplexLimits = .simplex
    /// Refuse images with more pixels than this after shrink-on-load.
    package var maxPixels = 100_000_000
    package var media = MediaOptions()
    package var xftp = true
    /// 1 for a contact, the member count for a group.
    package var recipients = 1

    package init() {}

    /// The byte cap for a video: the sender's budget, else the destination's own.
    var videoBudget: Int? { media.videoMaxBytes ?? profile.maxVideoBytes }
}

extension SendRules {
    /// How a file of `size` bytes named `fileName` travels: inline SMP, SMP or XFTP, or refused.
    func transfer(size: Int, kind: UploadContentKind, fileName: String) -> TransferPlan {
        TransferPlanner(limits: limits, xftpAvailable: xftp).plan(size: Int64(size), kind: kind, fileName: fileName, recipients: recipients)
    }

    /// Why a file of `size` cannot travel at all (checked before it is named), or nil.
    func refusal(size: Int, kind: UploadContentKind) -> String? {
        TransferPlanner(limits: limits, xftpAvailable: xftp).refusal(size: Int64(size), kind: kind, recipients: recipients)
    }
}
