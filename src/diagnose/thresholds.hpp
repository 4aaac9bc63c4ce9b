#pragma once
// Every threshold of the diagnose engine, in one place. docs/diagnose.md lists each with
// the source it comes from (Nsight Systems `analyze`, DCGM, XProf, SageMaker Debugger,
// PyTorch). Durations are seconds of the snapshots' own timestamps; ratios are 0..1.
#include <cstdint>

namespace gpuwatch::diagnose::thresholds {

// ---- Windows and hysteresis -------------------------------------------------------------
inline constexpr double kShortWindowS = 120;   // activity, throttling, PCIe
inline constexpr double kRecentWindowS = 20;   // the state right now (a hang starting)
inline constexpr double kLongWindowS = 310;    // sustained states: idle, low use, stuck, imbalance, leaks
inline constexpr double kMinShortCoverageS = 60;   // no judgement from less data than this
inline constexpr double kMinLongCoverageS = 240;   // ... and for the sustained checks (idle, low use, leak)
inline constexpr int kMinSamples = 10;
inline constexpr double kCoverageSlack = 0.97;     // "5 min of data" accepts 97 % of it (sampling jitter)             // at least this many samples in a window
inline constexpr double kMaxSampleGapS = 30;       // a longer gap between samples counts as no data
inline constexpr int kRaiseAfterEvaluations = 2;   // a condition holds this many samples in a row to raise
inline constexpr double kClearAfterS = 60;         // ... and is false this long to end the finding
inline constexpr double kRenderIntervalS = 5;      // evidence of an active finding is refreshed this often
inline constexpr double kHardwareHoldS = 900;      // an ECC/remap/Xid event keeps its finding active 15 min

// ---- Utilization ------------------------------------------------------------------------
inline constexpr double kIdleUtil = 0.05;          // a sample below this is idle (no kernel ran)
inline constexpr double kBusyUtil = 0.5;           // a sample at or above this is busy
inline constexpr double kPinnedUtil = 0.97;        // "pinned at 100 %"
// input_starved: XProf's input-bound levels (>= 5 % moderate, >= 20 % high) on the idle share.
inline constexpr double kStarvedInfoShare = 0.05;
inline constexpr double kStarvedWarnShare = 0.20;
inline constexpr double kStarvedExitShare = 0.03;
inline constexpr int kStarvedMinGaps = 3;          // recurring gaps in the long window, not one pause
inline constexpr double kStarvedMinBusyShare = 0.10;  // it does work between the gaps
inline constexpr double kStarvedMaxGapS = 20;         // longer pauses are phases (eval, checkpoint), not input waits
// launch_bound: DCGM "SM activity < 0.5 likely ineffective"; without GPM, low power for the board.
inline constexpr double kLaunchBoundMinUtil = 0.80;
inline constexpr double kLaunchBoundSmActive = 0.50;
inline constexpr double kLaunchBoundMinGap = 0.30;       // utilization minus SM activity
inline constexpr double kLaunchBoundPowerRatio = 0.40;   // power / limit, no memory utilization known
inline constexpr double kLaunchBoundPowerRatioLowMem = 0.55;  // ... when memory utilization is low too
inline constexpr double kLaunchBoundLowMemUtil = 0.15;
// low_utilization: Nsight `gpu_time_util` < 50 %; SageMaker low-utilization rule p95 < 70 %.
inline constexpr double kLowUtilInfo = 0.50;
inline constexpr double kLowUtilWarn = 0.25;
inline constexpr double kLowUtilExitMargin = 0.05;
inline constexpr double kLowUtilMaxIdleShare = 0.90;  // idler than this is idle_process's business
// idle_process: the seed's "utilization 0 with the process alive", for >= 5 min.
inline constexpr double kIdleProcessShare = 0.98;       // share of idle samples in the long window
inline constexpr double kIdleProcessMinS = 300;
inline constexpr double kIdleProcessMinMemoryBytes = 256.0 * 1024 * 1024;
// stuck_kernel: 100 % utilization at near-idle power for minutes (soperator#796); PyTorch's
// NCCL timeout is 10 min (pytorch#110947), so the finding becomes critical there.
inline constexpr double kStuckPinnedShare = 0.95;
inline constexpr double kStuckMaxMemUtil = 0.02;        // a spinning kernel moves no data
inline constexpr double kStuckPowerRatioLowMem = 0.40;  // power / limit when memory util is ~0
inline constexpr double kStuckPowerRatio = 0.20;        // ... when memory utilization is unknown
inline constexpr double kStuckMinS = 300;
inline constexpr double kStuckCriticalS = 600;
// collective_hang (issue 23): the ranks of one job switch together from their own working level
// to utilization pinned at flat, much lower power. A spin run starts at a pinned sample whose
// power is at most kSpinPowerDrop x the GPU's working level (kSpinMaxPowerRatio at most), within
// kSpinFromWorkS of its last working sample; it ends after kSpinBreakS without such a sample.
inline constexpr double kWorkLevelTauS = 60;          // the working level: EWMA of power / limit while busy
inline constexpr int kWorkLevelMinSamples = 10;       // ... known after this many busy samples
inline constexpr double kSpinPowerDrop = 0.60;
inline constexpr double kSpinMaxPowerRatio = 0.50;
inline constexpr double kSpinFromWorkS = 30;          // "a switch": straight from work, not after a pause
inline constexpr double kSpinBreakS = 15;
inline constexpr double kSpinFlatPowerStd = 0.05;     // "flat": std of power / limit over the run
inline constexpr double kHangSwitchSkewS = 30;        // the ranks' switches this close: simultaneous
inline constexpr double kHangMinS = 120;              // spinning this long together: a hang (warning)
inline constexpr double kHangRankGoneBeforeS = 120;   // a rank that left this soon before the switch died
inline constexpr double kHangIdleRankShare = 0.90;    // a member idle this share of the recent window
// imbalance: SageMaker's "histogram distance > 0.2", as a spread of mean utilization.
inline constexpr double kImbalanceSpread = 0.30;
inline constexpr double kImbalanceExitSpread = 0.20;
inline constexpr double kImbalanceMinBusy = 0.50;       // the busiest GPU of the job is this busy

// ---- Host causes (issue 25): what the host did while the GPU waited ----------------------
// Read from the host sample of each snapshot (1 s means of /proc/stat, /proc/pressure, ...), over
// the long window, weighted by how idle the GPU was (the gaps): docs/diagnose.md "Host causes".
inline constexpr double kHostMinGapWeight = 3;       // >= 3 s of gaps with host samples to name a cause (ours)
// input_starved's cause cpu_bound: SageMaker Debugger's CPUBottleneck rule (cpu_threshold 90 %
// while the GPU is under gpu_threshold 10 %), on the host's CPU in the gaps; the same 90 % on the
// job's process tree per worker (its workers saturated whatever the rest of the host does); CPU
// PSI some avg10 >= 30 % in the gaps (ours: runnable tasks waiting for a CPU a third of the time).
inline constexpr double kCpuBoundBusyRatio = 0.90;
inline constexpr double kCpuBoundTreeRatio = 0.90;
inline constexpr double kCpuBoundPressureRatio = 0.30;
// input_starved's cause io_bound: SageMaker Debugger's IOBottleneck rule (io_threshold 50 % iowait),
// io PSI some avg10 >= 30 % (ours), or a disk busy >= 90 % of the time (ours, iostat's %util near
// saturation for a rotating disk or a network block device) in the gaps.
inline constexpr double kIoBoundIowaitRatio = 0.50;
inline constexpr double kIoBoundPressureRatio = 0.30;
inline constexpr double kIoBoundDiskBusyRatio = 0.90;
// low_utilization: the host idle too below 25 % CPU busy (ours; the seed's "CPU low, GPU low").
inline constexpr double kHostIdleCpuRatio = 0.25;
// comm_bound: the job's GPUs dip together (the co-dip: the samples' least idle member over their
// most idle one, >= 60 %, ours), with input_starved's gap levels (XProf), while the network or
// InfiniBand moves >= 100 MB/s in the dips and >= 2x what it moves outside them (ours: gradient
// all-reduce traffic that DDP did not overlap with the backward pass, PyTorch DDP's buckets).
inline constexpr double kCommTogetherRatio = 0.60;
inline constexpr double kCommExitTogetherRatio = 0.45;
inline constexpr double kCommMinLinkBytesPerS = 100e6;
inline constexpr double kCommDipOverOutside = 2.0;
inline constexpr double kCommExitDipOverOutside = 1.5;
// host_memory_pressure (short window, while a process holds a GPU): swapping (swap-in + swap-out
// >= 256 pages/s, 1 MiB/s of 4 KiB pages, ours) half the time (SageMaker's "50 % of the time"), or
// memory PSI avg10 some >= 10 % / full >= 5 % on average (ours: systemd-oomd kills at 60 % for 30 s,
// DefaultMemoryPressureLimit; the warning comes well before).
inline constexpr double kSwapPagesPerS = 256;
inline constexpr double kSwapShare = 0.50;
inline constexpr double kSwapExitShare = 0.25;
inline constexpr double kMemoryPressureSomeRatio = 0.10;
inline constexpr double kMemoryPressureFullRatio = 0.05;
inline constexpr double kMemoryPressureExitFactor = 0.5;  // exit below half the levels
inline constexpr double kHostStaleS = 30;  // a host window whose last sample is older: no host (ours)

// ---- Throttling (clock event reasons and violation counters) -----------------------------
inline constexpr double kThrottleInfoShare = 0.02;
inline constexpr double kThrottleWarnShare = 0.10;
inline constexpr double kThrottleExitShare = 0.01;
inline constexpr double kThrottleCriticalHwShare = 0.25;  // hardware thermal slowdown this often
inline constexpr double kPowerCapWarnClockLoss = 0.15;    // power cap costs this much SM clock
inline constexpr double kPowerLimitLoweredRatio = 0.95;   // enforced limit below default x this

// ---- Memory -----------------------------------------------------------------------------
// memory_leak: steady growth (SageMaker "+5 % moving average" is the watch level).
inline constexpr double kLeakMinGrowthBytes = 256.0 * 1024 * 1024;
inline constexpr double kLeakMinGrowthOfTotal = 0.01;
inline constexpr double kLeakMinR2 = 0.90;
// A process whose memory drops below this share of its previous reading in one sample freed it
// (or restarted): its memory trend starts over (no leak is judged across the drop).
inline constexpr double kLeakResetDropRatio = 0.5;
inline constexpr double kLeakMinHalfSlopeRatio = 0.70;   // recent half grows at least 70 % as fast
inline constexpr double kLeakCriticalOomS = 900;         // projected OOM within 15 min: critical
inline constexpr int kLeakMinPoints = 10;
inline constexpr double kLeakMinSpanS = 120;           // never call a leak from less than 2 min of growth
// memory_pressure: the seed's "free memory below 10 %"; PyTorch profiler's "peak > 90 %".
inline constexpr double kPressureUsedRatio = 0.90;
inline constexpr double kPressureExitRatio = 0.87;
inline constexpr double kPressureGrowthBytesPerS = 1.0 * 1024 * 1024;  // growing "towards the limit"
// unattributed_memory: device memory no visible process accounts for.
inline constexpr double kUnattributedMinBytes = 2.0 * 1024 * 1024 * 1024;
inline constexpr double kUnattributedMinOfTotal = 0.05;

// ---- Hardware ---------------------------------------------------------------------------
inline constexpr double kPcieLoadUtil = 0.5;             // link checked only under load
inline constexpr double kPcieDegradedShare = 0.8;

}  // namespace gpuwatch::diagnose::thresholds
