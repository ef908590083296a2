# ruff: noqa: E501  (the example log lines are kept as tools print them)
"""The knowledge base as data: every entry loads, covers the taxonomy, and its patterns mean what they say.

Why these tests: entries are edited by people who are not reading the engine. A pattern that
Hyperscan rejects silently falls back to slow Python matching; a pattern that matches a healthy
training line turns every job into a false alarm; a pattern that no longer matches the message it was
written for loses a failure class. The example lines below are realistic log lines (taken from the
shapes real tools print), each with the entry that must win on that line alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge.schema import (
    CATEGORIES,
    ENTRIES_DIR,
    Entry,
    EntryError,
    Role,
    load_entries,
    load_entry,
    load_xids,
)

hyperscan = pytest.importorskip("hyperscan")

ENTRIES = load_entries(ENTRIES_DIR)
BY_ID = {e.id: e for e in ENTRIES}

# line -> the entry that must score highest on that line (entries that require context are
# checked separately, in CONTEXT_CASES, because a single line cannot carry their context).
EXAMPLES: list[tuple[str, str]] = [
    # GPU OOM in the step
    (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 4 has a total capacity "
        "of 79.11 GiB of which 1.07 GiB is free.",
        "cuda-oom-training-step",
    ),
    (
        "[rank5]: RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total "
        "capacity; 14.24 GiB already allocated)",
        "cuda-oom-training-step",
    ),
    ("RuntimeError: CUDA error: out of memory", "cuda-oom-training-step"),
    (
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
        "17179869184 bytes.",
        "cuda-oom-training-step",
    ),
    # FSDP full state dict on GPU
    (
        "/opt/conda/lib/python3.9/site-packages/torch/distributed/fsdp/_state_dict_utils.py:312: UserWarning: "
        "Failed to clone() tensor with name _fsdp_wrapped_module.model.layers.30.mlp.down_proj.weight on rank 0. "
        "Error: CUDA out of memory. Tried to allocate 172.00 MiB",
        "fsdp-full-state-dict-gpu-oom",
    ),
    # checkpoint CPU OOM
    (
        "RuntimeError: [enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: "
        "you tried to allocate 180355072 bytes. Error code 12 (Cannot allocate memory)",
        "checkpoint-cpu-alloc-oom",
    ),
    # host OOM
    (
        "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=487912.batch cgroup. Some of your processes "
        "may have been killed by the cgroup out-of-memory handler.",
        "host-oom-killer",
    ),
    (
        "[Fri Nov 20 03:14:02 2026] Out of memory: Killed process 48213 (python) total-vm:312345678kB, "
        "anon-rss:245678912kB",
        "host-oom-killer",
    ),
    (
        "[Fri Nov 20 03:14:02 2026] Memory cgroup out of memory: Killed process 48213 (python)",
        "host-oom-killer",
    ),
    ("slurm: JobState=OUT_OF_MEMORY ExitCode=0:125", "host-oom-killer"),
    ("k8s: pod train-6 container pytorch terminated reason=OOMKilled exitCode=137", "host-oom-killer"),
    (
        "/var/spool/slurmd/job1234/slurm_script: line 12: 48213 Killed                  python train.py",
        "host-oom-killer",
    ),
    ("Killed", "host-oom-killer"),
    (
        "torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 1234) of binary: "
        "/usr/bin/python3",
        "host-oom-killer",
    ),
    (
        "k8s: pod train-2 evicted reason=Evicted message=The node was low on resource: memory.",
        "host-oom-killer",
    ),
    # DataLoader workers
    (
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory "
        "(shm).",
        "dataloader-worker-shm",
    ),
    (
        "RuntimeError: DataLoader worker (pid 3418) is killed by signal: Bus error. It is possible that "
        "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
        "dataloader-worker-shm",
    ),
    (
        "RuntimeError: unable to write to file </torch_18692_1954506624>: No space left on device (28)",
        "dataloader-worker-shm",
    ),
    (
        "RuntimeError: DataLoader worker (pid 27351) is killed by signal: Killed.",
        "dataloader-worker-killed-signal",
    ),
    (
        "RuntimeError: DataLoader worker (pid(s) 27351, 27352) exited unexpectedly",
        "dataloader-worker-killed-signal",
    ),
    # NCCL timeouts
    (
        "[rank1]:[E ProcessGroupNCCL.cpp:523] [Rank 1] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600659 "
        "milliseconds before timing out.",
        "nccl-watchdog-timeout",
    ),
    (
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms "
        "for recv operation to complete",
        "nccl-watchdog-timeout",
    ),
    (
        "[rank0]:[E1120 03:24:02.123456 ProcessGroupNCCL.cpp:1316] - To our best knowledge, ranks [3] are the "
        "lagging ranks that caused this timeout. They never joined any collectives",
        "nccl-desync-report",
    ),
    # NCCL communication
    (
        "simple-layoutlm:97:183 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
        "nccl-shm-recv-c43b846667d22574-1-1-0 (size 9637888)",
        "nccl-shm-too-small",
    ),
    (
        "gpu-3:1234:1290 [2] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
        "nccl-shm-too-small",
    ),
    (
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
        "nccl-network-transport-error",
    ),
    (
        "socketProgressOpt: Call to recv from 172.16.0.3<33759> failed : Connection reset by peer",
        "nccl-network-transport-error",
    ),
    (
        "gpu-12:4412:4501 [3] NCCL INFO NET/IB : Got completion from peer 10.1.2.3<52312> with error 12, opcode 0, "
        "len 0, vendor err 129 (Recv)",
        "nccl-network-transport-error",
    ),
    (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
        "nccl-network-transport-error",
    ),
    (
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, invalid usage, "
        "NCCL version 2.14.3",
        "nccl-version-mismatch",
    ),
    (
        "gpu-1:812:812 [1] init.cc:1062 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device "
        "1000",
        "nccl-version-mismatch",
    ),
    (
        "gpu-c02:5108:5198 [0] init.cc:775 NCCL WARN Mismatched NCCL version detected : rank 0 version 22501 rank 8 "
        "version 22304",
        "env-mixed-library-versions",
    ),
    (
        "gpu-b03:1822:1907 [0] ras/ras.cc:391 NCCL WARN NCCL version mismatch with remote peer 10.0.3.21<37855> "
        "(local: 22403, remote 22304)",
        "env-mixed-library-versions",
    ),
    (
        "/usr/bin/python3: symbol lookup error: /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so: "
        "undefined symbol: ncclCommInitRankConfig",
        "env-import-undefined-symbol",
    ),
    ("RuntimeError: Triton Error [CUDA]: device kernel image is invalid", "env-cuda-driver-mismatch"),
    (
        "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: tuple index out of range",
        "env-visible-device-count-mismatch",
    ),
    # rendezvous
    (
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).",
        "rendezvous-port-in-use",
    ),
    (
        "torch.distributed.DistNetworkError: The client socket has failed to connect to [node-0]:29500 "
        "(errno: 110 - Connection timed out).",
        "rendezvous-master-unreachable",
    ),
    (
        "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
        "failed. See inner exception for details.",
        "rendezvous-master-unreachable",
    ),
    ("socket.gaierror: [Errno -2] Name or service not known", "rendezvous-master-unreachable"),
    ("torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError", "rendezvous-store-timeout"),
    (
        "RuntimeError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.",
        "rendezvous-store-timeout",
    ),
    (
        "torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /default_pg/0//cuda//0",
        "rendezvous-store-timeout",
    ),
    # Xids and GPU faults
    (
        "[Fri Nov 20 03:14:01 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has "
        "fallen off the bus.",
        "xid-79-fallen-off-bus",
    ),
    ("NVRM: Xid (0000:03:00): 79, GPU has fallen off the bus.", "xid-79-fallen-off-bus"),
    (
        "Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost.  Reboot the system to recover "
        "this GPU",
        "xid-79-fallen-off-bus",
    ),
    (
        "[default0]:[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 12] "
        "Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered",
        "xid-ecc-memory-error",
    ),
    (
        "NVRM: Xid (PCI:0000:c1:00): 94, pid=2412, name=python, Contained: SM (0x1). RST: No, D-RST: No",
        "xid-ecc-memory-error",
    ),
    (
        "NVRM: Xid (PCI:0000:c1:00): 48, pid=2412, name=python, An uncorrectable double bit error (DBE) has been "
        "detected on GPU in the framebuffer at partition 6, subpartition 0.",
        "xid-ecc-memory-error",
    ),
    (
        "NVRM: Xid (PCI:0000:8a:00): 74, pid=5521, name=python, NVLink: fatal error detected on link 3(0x0, 0x0, "
        "0x10000, 0x0, 0x0, 0x0, 0x0)",
        "xid-nvlink-error",
    ),
    ("RuntimeError: CUDA error: system not yet initialized", "xid-nvlink-error"),
    (
        "NVRM: Xid (PCI:0000:0b:00): 119, pid=11431, name=gpu-feature-dis, Timeout after 45s of waiting for RPC "
        "response from GPU3 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 4128 (0x20803039 0xb0).",
        "xid-gsp-timeout",
    ),
    (
        "192.168.11.119: kern: warning: [2026-04-22T21:27:51.291919134Z]: NVRM: _issueRpcAndWait: rpcRecvPoll "
        "timedout for fn 76 sequence 4127!",
        "xid-gsp-timeout",
    ),
    (
        "NVRM: Xid (PCI:0000:41:00): 62, pid=1234, name=python, 0000d2c1 00005d68 00000000",
        "xid-gpu-fault-other",
    ),
    (
        "Dec  2 11:38:46 worker4 kernel: [  218.250408] NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)",
        "xid-gpu-fault-other",
    ),
    (
        "[  +0.000316] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer",
        "xid-79-fallen-off-bus",
    ),
    (
        "NVRM: Xid (PCI:0000:41:00): 31, pid=1234, name=python, Ch 00000008, intr 00000000. MMU Fault: ENGINE "
        "GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f_12340000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
        "xid-application-fault",
    ),
    # CUDA kernel faults
    (
        "Warning: CUDA warning: an illegal memory access was encountered (function destroyEvent)",
        "cuda-illegal-memory-access",
    ),
    ("RuntimeError: CUDA error: misaligned address", "cuda-illegal-memory-access"),
    (
        "../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [18,0,0], thread: [5,0,0] "
        "Assertion `srcIndex < srcSelectDimSize` failed.",
        "device-side-assert",
    ),
    (
        "/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
        "thread: [6,0,0] Assertion `t >= 0 && t < n_classes` failed.",
        "device-side-assert",
    ),
    ("RuntimeError: CUDA error: device-side assert triggered", "device-side-assert"),
    (
        "RuntimeError: CuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a "
        "non-contiguous input.",
        "cudnn-cublas-error",
    ),
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, "
        "m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, "
        "CUBLAS_GEMM_DFALT_TENSOR_OP)`",
        "cudnn-cublas-error",  # EXECUTION_FAILED in cublasGemmEx (fp16/bf16): cuBLAS's own failure first
    ),
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, "
        "m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",
        "env-cuda-driver-mismatch",  # a bare EXECUTION_FAILED elsewhere: first the build/GPU mismatch
    ),
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_INTERNAL_ERROR when calling `cublasCreate(handle)`",
        "cudnn-cublas-error",
    ),
    # numerics and DDP
    (
        "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.",
        "nan-loss-scale-divergence",
    ),
    (
        "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding. Try lowering "
        "the learning rate, using gradient clipping or increasing the batch size.",
        "nan-loss-scale-divergence",
    ),
    (
        "AssertionError: Rank 0: found NaN in local grad norm in backward pass before data-parallel communication "
        "collective.",
        "nan-loss-divergence",
    ),
    ("Loss is nan, stopping training", "nan-loss-divergence"),
    (
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This "
        "error indicates that your module has parameters that were not used in producing loss.",
        "ddp-unused-parameters",
    ),
    (
        "RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following "
        "reasons",
        "ddp-unused-parameters",
    ),
    # environment
    (
        "[rank0]: AssertionError: CUDA device, driver and/or toolkit version does not support comm+GEMM overlap "
        "with CUDA Multicast. Launch app with UB_SKIPMC=1 to try CUDA IPC instead.",
        "env-cuda-driver-mismatch",
    ),
    (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "env-cuda-driver-mismatch",
    ),
    (
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).",
        "env-cuda-driver-mismatch",
    ),
    ("CUDA driver version is insufficient for CUDA runtime version", "env-cuda-driver-mismatch"),
    ("Failed to initialize NVML: Driver/library version mismatch", "env-cuda-driver-mismatch"),
    (
        "ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN3c104cuda9SetDeviceEi",
        "env-import-undefined-symbol",
    ),
    (
        "OSError: libcudart.so.12: cannot open shared object file: No such file or directory",
        "env-import-undefined-symbol",
    ),
    ("ModuleNotFoundError: No module named 'flash_attn'", "env-import-undefined-symbol"),
    (
        "FileNotFoundError: [Errno 2] No such file or directory: 'saves/lora/tmp-checkpoint-1000' -> "
        "'saves/lora/checkpoint-1000'",
        "env-transformers-staged-checkpoint-rename",
    ),
    (
        "ImportError: tokenizers>=0.14,<0.19 is required for a normal functioning of this module, but found "
        "tokenizers==0.19.1.",
        "env-import-undefined-symbol",
    ),
    ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "env-cuda-driver-mismatch"),
    ("AssertionError: Torch not compiled with CUDA enabled", "env-cuda-driver-mismatch"),
    ("RuntimeError: Error building extension 'fused_adam'", "env-import-undefined-symbol"),
    (
        "RuntimeError: cublas runtime error : the GPU program failed to execute at /pytorch/aten/src/THC/THCBlas.cu:411",
        "cudnn-cublas-error",
    ),
    (
        "RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the "
        "limit using `ulimit -n` in the shell or change the sharing strategy",
        "dataloader-worker-shm",
    ),
    (
        "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=7']' died with "
        "<Signals.SIGSEGV: 11>.",
        "segfault-native-crash",
    ),
    # storage
    (
        "OSError: [Errno 28] No space left on device: '/ckpt/step_12000/model-00003-of-00008.safetensors'",
        "disk-full",
    ),
    (
        "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 3114368 vs 3114288",
        "disk-full",
    ),
    ("RuntimeError: PytorchStreamWriter failed writing file data/12: file write failed", "disk-full"),
    ("RuntimeError: write(): fd 29 failed with Input/output error", "disk-full"),
    ("OSError: [Errno 122] Disk quota exceeded", "disk-full"),
    ("OSError: [Errno 116] Stale file handle", "filesystem-io-error"),
    ("OSError: [Errno 30] Read-only file system: '/ckpt/latest'", "filesystem-io-error"),
    # native crashes
    ("Fatal Python error: Segmentation fault", "segfault-native-crash"),
    (
        "/bin/bash: line 1: 23881 Segmentation fault      (core dumped) python train.py",
        "segfault-native-crash",
    ),
    (
        "torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) local_rank: 3 (pid: 4312) of "
        "binary: /usr/bin/python",
        "segfault-native-crash",
    ),
    # schedulers
    (
        "slurmstepd: error: *** JOB 494583 ON gpu-07 CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***",
        "scheduler-time-limit",
    ),
    ("slurm: JobState=TIMEOUT ExitCode=0:0", "scheduler-time-limit"),
    (
        "slurmstepd: error: *** JOB 77 ON gpu-03 CANCELLED AT 2026-11-20T03:14:02 DUE TO PREEMPTION ***",
        "scheduler-preempted-cancelled",
    ),
    (
        "slurmstepd: error: *** STEP 1234.0 ON gpu-01 CANCELLED AT 2026-11-20T03:14:02 ***",
        "scheduler-preempted-cancelled",
    ),
    ("slurm: JobState=PREEMPTED ExitCode=0:15", "scheduler-preempted-cancelled"),
    (
        "k8s: pod train-3 container pytorch terminated reason=Evicted exitCode=137",
        "scheduler-preempted-cancelled",
    ),
    ("slurm: JobState=NODE_FAIL ExitCode=0:0", "scheduler-node-fail"),
    ("srun: error: Node failure on gpu-17", "scheduler-node-fail"),
    # hangs
    (
        "RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=21, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Long",
        "mismatched-collectives-hang",
    ),
    ('Thread 48213 (active): "MainThread"', "hang-no-progress"),
    ("Timeout (0:30:00)!", "hang-no-progress"),
    # user code
    (
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x4096 and 1024x4096)",
        "python-user-code-error",
    ),
    (
        "RuntimeError: Cannot find valid samples, check `data/README.md` for the data format.",
        "python-user-code-error",
    ),
    ("[rank3]: KeyError: 'labels'", "python-user-code-error"),
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
        "cpu!",
        "python-user-code-error",
    ),
    # teardown (collateral only)
    (
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 45099 closing signal SIGTERM",
        "sigterm-elastic-teardown",
    ),
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", "sigterm-elastic-teardown"),
    (
        "[2023-07-26 15:19:27,802] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 45099",
        "sigterm-elastic-teardown",
    ),
    # --- wording mined from the sources (issue 12): other versions' messages and new classes
    ("RuntimeError: connect() timed out. Original timeout was 60000 ms.", "rendezvous-master-unreachable"),
    (
        "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to (10.1.2.3, 29500).",
        "rendezvous-master-unreachable",
    ),
    (
        "RuntimeError: The client socket has timed out after 1800000ms while trying to connect to (gpu-node-0, 29400).",
        "rendezvous-master-unreachable",
    ),
    (
        "torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (node-0, 29500).",
        "rendezvous-master-unreachable",
    ),
    ("ValueError: host not found: Name or service not known", "rendezvous-master-unreachable"),
    (
        "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
        "rendezvous-master-unreachable",
    ),
    ("RuntimeError: waiting for processes to connect has timed out", "rendezvous-store-timeout"),
    (
        "OSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 8265): address already in use",
        "rendezvous-port-in-use",
    ),
    (
        "RuntimeError: [Rank 0]: Ranks 3, 5 failed to pass monitoredBarrier in 1800000 ms",
        "nccl-desync-report",
    ),
    ("RuntimeError: Rank 2 timed out in monitoredBarrier after 1800000 ms.", "nccl-desync-report"),
    (
        # alone (no `Watchdog caught collective operation timeout` named first), the tear-down line is
        # read as the NCCL-error half of the watchdog's check (round 17e, nccl-ops-failed-no-timeout)
        "[E ProcessGroupNCCL.cpp:414] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down.",
        "nccl-network-transport-error",
    ),
    (
        "[rank3]:[E1120 03:24:02.123456 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank 3] Exception (either an error or timeout) detected by watchdog at work: 4021, last enqueued NCCL work: 4021, last completed NCCL work: 4020.",
        "nccl-watchdog-timeout",
    ),
    (
        "gpu-12:4412:4501 [3] NCCL WARN NET/IB : Got completion from peer 10.1.2.3<52312> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.1.2.4 remoteGids::ffff:10.1.2.3",
        "nccl-network-transport-error",
    ),
    (
        "node-3:2211:2290 [0] NCCL WARN NET/IB: Got completion from peer 10.0.0.7<41234> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 hca mlx5_2",
        "nccl-network-transport-error",
    ),
    (
        "node-1:911:1002 [2] misc/socket.cc:484 NCCL WARN socketPollConnect: Connect to 10.0.0.2<43211> returned 113(No route to host) errno 115(Operation now in progress)",
        "nccl-network-transport-error",
    ),
    (
        "node-1:911:1002 [2] NCCL WARN socketStartConnect: exceeded retries (20000)",
        "nccl-network-transport-error",
    ),
    (
        "node-1:911:1002 [2] os/linux.cc:302 NCCL WARN ncclSocketConnect: connect to 10.0.0.2<43211> failed : Connection refused",
        "nccl-network-transport-error",
    ),
    (
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
        "nccl-network-transport-error",
    ),
    (
        "gpu-3:1234:1290 [2] misc/shmutils.cc:113 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-XyZ123 (size 9637888)",
        "nccl-shm-too-small",
    ),
    (
        "gpu-3:1234:1290 [2] misc/shmutils.cc:73 NCCL WARN Error: failed to extend /dev/shm/nccl-lGGHXf to 9637892 bytes, error: No space left on device (28)",
        "nccl-shm-too-small",
    ),
    (
        "gpu-0:501:501 [0] bootstrap.cc:145 NCCL WARN Bootstrap Root : rank 1 of 8 ranks has already checked in",
        "nccl-version-mismatch",
    ),
    (
        "gpu-0:501:501 [0] bootstrap.cc:140 NCCL WARN Bootstrap Root : mismatch in rank count from procs 8 : 16",
        "nccl-version-mismatch",
    ),
    ("RuntimeError: CUDA error: invalid device function", "env-cuda-driver-mismatch"),
    ("RuntimeError: CUDA error: no CUDA-capable device is detected", "env-cuda-driver-mismatch"),
    (
        "/var/spool/slurmd/job4411/slurm_script: line 9: 20113 Illegal instruction     (core dumped) python train.py",
        "env-import-undefined-symbol",
    ),
    ("gpu-2:3301:3301 [1] NCCL WARN Failed to CUDA malloc 536870912 bytes", "cuda-oom-training-step"),
    (
        "RuntimeError: MPS backend out of memory (MPS allocated: 17.50 GB, other allocations: 1.20 GB, max allowed: 18.13 GB).",
        "cuda-oom-training-step",
    ),
    (
        "torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)",
        "cuda-oom-training-step",
    ),
    ("srun: error: gpu-17: task 5: Out Of Memory", "host-oom-killer"),
    (
        "[Fri Nov 20 03:14:03 2026] oom_reaper: reaped process 48213 (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
        "host-oom-killer",
    ),
    (
        "[ 5123.441] Task in /slurm/uid_1000/job_4411/step_0 killed as a result of limit of /slurm/uid_1000/job_4411",
        "host-oom-killer",
    ),
    (
        "[2024-03-01 10:11:12,123] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=3'] exits with return code = -9",
        "host-oom-killer",
    ),
    (
        "RuntimeError: DataLoader worker (pid 27351) exited unexpectedly with exit code 1. Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace.",
        "dataloader-worker-killed-signal",
    ),
    ("ERROR: Unexpected segmentation fault encountered in worker.", "dataloader-worker-killed-signal"),
    ("RuntimeError: Pin memory thread exited unexpectedly", "dataloader-worker-killed-signal"),
    ("RuntimeError: DataLoader timed out after 600 seconds", "dataloader-worker-killed-signal"),
    ("FloatingPointError: gradients are Nan/Inf", "nan-loss-divergence"),
    (
        "FloatingPointError: Fatal error: gradients are inconsistent between workers. Try --ddp-backend=legacy_ddp.",
        "nan-loss-divergence",
    ),
    (
        "RuntimeError: Rank 3, node gpu-07, device 3, iteration 1201: Unexpected result nan (message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective')",
        "nan-loss-divergence",
    ),
    (
        "AssertionError: Rank 0: found Inf in local forward loss calculation. Device: 0, node: gpu-01",
        "nan-loss-divergence",
    ),
    (
        "Monitored metric val_loss = nan is not finite. Previous best value was 2.311. Signaling Trainer to stop.",
        "nan-loss-divergence",
    ),
    ("{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 1.9e-05, 'epoch': 0.42}", "nan-loss-divergence"),
    (
        "[2024-03-01 10:11:12,123] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=0'] exits with return code = -11",
        "segfault-native-crash",
    ),
    (
        "[2024-03-01 10:11:12,123] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=1'] exits with return code = 1",
        "sigterm-elastic-teardown",
    ),
    (
        "slurmstepd: error: *** STEP 4411.0 ON gpu-03 CANCELLED AT 2026-11-20T03:14:02 DUE TO TASK FAILURE ***",
        "sigterm-elastic-teardown",
    ),
    ("Root Cause (first observed failure):", "sigterm-elastic-teardown"),
    (
        "INFO:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. 2/3 attempts left; will restart worker group",
        "sigterm-elastic-teardown",
    ),
    (
        "slurmstepd: error: *** JOB 4411 ON gpu-03 CANCELLED AT 2026-11-20T03:14:02 DUE TO JOB REQUEUE ***",
        "scheduler-preempted-cancelled",
    ),
    (
        "slurmstepd: error: *** JOB 4411 ON gpu-03 CANCELLED AT 2026-11-20T03:14:02 DUE to SIGNAL Terminated ***",
        "scheduler-preempted-cancelled",
    ),
    (
        "k8s: pod train-4 status: Failed reason=Terminated message=Pod was terminated in response to imminent node shutdown.",
        "scheduler-preempted-cancelled",
    ),
    (
        "k8s: job train-llm failed reason=DeadlineExceeded message=Job was active longer than specified deadline",
        "scheduler-time-limit",
    ),
    ("[Fri Nov 20 03:14:02 2026] Kernel panic - not syncing: Fatal machine check", "scheduler-node-fail"),
    (
        "[Fri Nov 20 03:14:01 2026] mce: [Hardware Error]: CPU 12: Machine Check Exception: 5 Bank 7: be00000000800400 Uncorrected",
        "scheduler-node-fail",
    ),
    (
        "[Fri Nov 20 03:14:01 2026] EDAC MC1: 1 UE memory read error on CPU_SrcID#1_Ha#0_Chan#2_DIMM#0",
        "scheduler-node-fail",
    ),
    (
        "[Fri Nov 20 03:14:02 2026] INFO: task python:48213 blocked for more than 120 seconds.",
        "hang-no-progress",
    ),
    (
        "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution",
        "xid-nvlink-error",
    ),
    (
        "RuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans support the graph.",
        "cudnn-cublas-error",
    ),
    (
        "RuntimeError: cusolver error: CUSOLVER_STATUS_EXECUTION_FAILED, when calling `cusolverDnSgetrf(handle, m, n, dA, ldda, dwork, ipiv, info)`",
        "cudnn-cublas-error",
    ),
    (
        "OSError: [Errno 121] Remote I/O error: '/lustre/ckpt/step_4000/model.safetensors'",
        "filesystem-io-error",
    ),
    (
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory",
        "filesystem-io-error",
    ),
    (
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x1554e9e0f8f2 in /opt/conda/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)",
        "nccl-watchdog-timeout",
    ),
    (
        " *, Dtype *, int, int, int, int, long) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.",
        "device-side-assert",
    ),
    (
        "*** Error in `python': malloc(): memory corruption (fast): 0x00007ffef09a9958 ***",
        "segfault-native-crash",
    ),
    (
        "#0  0x00007fffea95be4f in std::_Hashtable<torch::autograd::Function*, std::pair<torch::autograd::Function* const, torch::autograd::GraphTask::ExecInfo> >::_M_find_before_node (__code=<optimized out>,",
        "segfault-native-crash",
    ),
    ("srun: error: gpu-07: task 0: Aborted (core dumped)", "segfault-native-crash"),
    (
        "[2023-07-20 15:45:13,982] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=1'] exits with return code = -7",
        "dataloader-worker-shm",
    ),
    ("RuntimeError: File my_out/checkpoints/checkpoint_0.pt cannot be opened.", "filesystem-io-error"),
    ("Gradient overflow.  Skipping step, reducing loss scale to 16384.0", "nan-loss-scale-divergence"),
    (
        "subprocess.CalledProcessError: Command '['/usr/bin/python3', 'train.py', '--config', 'cfg.yaml']' returned non-zero exit status 1.",
        "sigterm-elastic-teardown",
    ),
    (
        "slurmstepd: error: Detected 1 oom_kill event in StepId=4411.0. Some of the step tasks have been OOM Killed.",
        "host-oom-killer",
    ),
    (
        ">- DeepSpeed Op Builder: Installed CUDA version 11.8 does not match the version torch was compiled with 12.1, unable to compile cuda/cpp extensions without a matching cuda version.",
        "env-cuda-driver-mismatch",
    ),
    (
        "RuntimeError: CUDA Setup failed despite GPU being available. Please run the following command to get more information: python -m bitsandbytes",
        "env-import-undefined-symbol",
    ),
    (
        "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?",
        "rendezvous-master-unreachable",
    ),
    (
        'k8s: pod train-1 evicted reason=Evicted message=Pod ephemeral local storage usage exceeds the total limit of containers 100Gi. Container pytorch exceeded its local ephemeral storage limit "100Gi".',
        "disk-full",
    ),
    ("!!!! kernel execution error. (m: 768, n: 4608, k: 3072, error: 13) ", "cudnn-cublas-error"),
    ("AttributeError: _old_init", "env-import-undefined-symbol"),
    (
        "RuntimeError: merge_sort: failed to synchronize: cudaErrorIllegalAddress: an illegal memory access was encountered",
        "env-cuda-driver-mismatch",
    ),
    (
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:514, unhandled cuda error, NCCL version 2.4.8",
        "env-cuda-driver-mismatch",
    ),
]

# Lines of healthy jobs: none of these may match any signature (primary or collateral).
BENIGN: list[str] = [
    "{'loss': 1.2345, 'learning_rate': 1.9e-05, 'epoch': 0.42}",
    "step 1200/50000 | loss 2.3141 | lr 3.00e-04 | grad_norm 0.913 | tokens/s 412345",
    "[2026-11-20 03:14:02,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=1200, skipped=0, lr=[0.0003]",
    " 45%|████▌     | 450/1000 [12:03<14:44,  1.61s/it]",
    "Epoch 3: 100%|██████████| 1563/1563 [05:21<00:00, 4.86it/s, loss=0.412, v_num=7]",
    "gpu-01:1234:1290 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to ib0",
    "gpu-01:1234:1290 [0] NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7",
    "gpu-01:1234:1290 [0] NCCL INFO Connected all rings",
    "gpu-01:1234:1290 [0] NCCL INFO comm 0x55d5c0 rank 0 nranks 16 cudaDev 0 busId 18000 commId 0xabc - Init COMPLETE",
    "gpu-01:1234:1290 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>",
    "gpu-01:1234:1290 [0] NCCL INFO Using network IB",
    "/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:90: UserWarning: None of the inputs have "
    "requires_grad=True. Gradients will be None",
    "[W socket.cpp:663] [c10d] The client socket cannot be initialized to connect to [localhost]:29500 "
    "(errno: 97 - Address family not supported by protocol).",
    "FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use "
    "`torch.amp.autocast('cuda', args...)` instead.",
    "Saving model checkpoint to /ckpt/checkpoint-1000",
    "Loading checkpoint shards: 100%|██████████| 4/4 [00:05<00:00,  1.30s/it]",
    "[2026-11-20 03:14:02,123] [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving "
    "/ckpt/global_step1000/mp_rank_00_model_states.pt...",
    "wandb: Syncing run gallant-sun-42",
    "Running tokenizer on dataset: 100%|██████████| 2969526/2969526 [58:11<00:00, 850.5 examples/s]",
    "torch.distributed.elastic.agent.server.api:[default] Starting worker group",
    "INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished.",
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023",
    "[Fri Nov 20 03:00:00 2026] nvidia-nvlink: Nvlink Core is being initialized, major device number 509",
    "Gradient accumulation steps = 8",
    "  Num examples = 2969526",
    "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622",
    "[INFO|trainer.py:2128] 2026-11-20 03:14:02 >> ***** Running training *****",
    "Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...",
    "time limit for this job: 48:00:00",
    "MemoryError handling is enabled",
    "/usr/lib/python3/dist-packages/torchvision/io/image.py:13: UserWarning: Failed to load image Python extension: "
    "'/usr/lib/python3/dist-packages/torchvision/image.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev'",
    "Warning: apex was installed without --cpp_ext. Falling back to Python flatten and unflatten.",
    "babel-0-31:2324238:2324238 [2] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open "
    "shared object file: No such file or directory : when loading libnccl-net.so",
    "babel-0-31:2324239:2324522 [3] NCCL INFO ncclCommInitRank comm 0x5584021f39f0 rank 3 nranks 4 cudaDev 3 "
    "nvmlDev 3 busId e1000 commId 0xb886029f29f1a815 - Init COMPLETE",
    "Train:  20%|█▉        | 375/1881 [3:40:16<14:52:25, 35.55s/it]",
    "[  +0.000005] pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)",
    "|   0  NVIDIA A100-SXM4-80GB   On   | 00000000:07:00.0 Off |                    0 |",
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "Installed CUDA version 12.2 does not match the version torch was compiled with 12.1 but since the APIs are compatible, accepting this combination",
    "[2024-03-01 10:11:12,123] [INFO] [launch.py:351:main] Process 4412 exits successfully.",
    "Restoring states from the checkpoint path at /ckpt/epoch=3-step=4000.ckpt",
    "[Fri Nov 20 03:00:00 2026] mce: CPU0: Thermal monitoring enabled (TM1)",
    "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:",
    "gpu-01:1234:1290 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
    "{'train_runtime': 3601.2, 'train_samples_per_second': 41.2, 'grad_norm': 0.8123, 'epoch': 3.0}",
]

# Lines that show up early in healthy runs: they may count as collateral, never as a primary cause
# (the engine takes the earliest primary failure as the initiating one).
NOT_PRIMARY: list[str] = [
    "[2026-11-20 03:00:05,000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping "
    "step. Attempted loss scale: 65536, reducing to 32768",
    "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
    "[W socket.cpp:601] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot "
    "assign requested address).",
    "wandb: Network error (ConnectionError), entering retry loop. Connection reset by peer",
    "NVRM: Xid (PCI:0000:3b:00): 45, pid=4412, name=python, Ch 00000010",
]

# Multi-line snippets for entries that only count with context; run through the real engine.
CONTEXT_CASES: list[tuple[str, str, str]] = [
    (
        "nccl-2-18-release-bug",
        """NCCL version 2.18.3+cuda12.1
[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1251, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3
[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.
[rank1]: Last error:
[rank1]: Cuda failure 'invalid argument'
""",
        "env-nccl-218-transport-setup",
    ),
    (
        "megatron-te-offload-args",
        """[rank4]:   File "/usr/local/lib/python3.12/dist-packages/megatron/core/extensions/transformer_engine.py", line 1702, in get_cpu_offload_context
[rank4]:     context, sync_func = _get_cpu_offload_context(
[rank4]:   File "/usr/local/lib/python3.12/dist-packages/transformer_engine/pytorch/cpu_offload.py", line 512, in get_cpu_offload_context
[rank4]:     raise ValueError(
[rank4]: ValueError: CPU Offloading is enabled while it is not mentioned what to offload (weights/activations)
""",
        "env-te-offload-signature-misread",
    ),
    (
        "verl-tool-parser-tokens",
        """ValueError: No tool call parser found for tokenizer Qwen2TokenizerFast(name_or_path='/models/qwen', vocab_size=151643, added_tokens_decoder={
        151657: AddedToken("<tool_call>", rstrip=False, lstrip=False, single_word=False, normalized=False, special=False),
        151658: AddedToken("</tool_call>", rstrip=False, lstrip=False, single_word=False, normalized=False, special=False),
}
)
""",
        "env-rollout-tool-parser-tokens",
    ),
    (
        "crash-after-pip-conflict",
        """ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.
torch 2.2.1+cu121 requires nvidia-cublas-cu12==12.1.3.1; platform_system == "Linux" and platform_machine == "x86_64", but you have nvidia-cublas-cu12 12.4.5.8 which is incompatible.
Successfully installed jax-0.4.26 jaxlib-0.4.26+cuda12.cudnn89 nvidia-cublas-cu12-12.4.5.8
RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`
""",
        "env-crash-with-mismatched-build",
    ),
    (
        "api-drift",
        """Traceback (most recent call last):
  File "/work/openrlhf/trainer/ray/vllm_engine.py", line 58, in __init__
    self.llm = vllm.LLM(*args, **kwargs)
  File "/opt/conda/lib/python3.11/site-packages/vllm/entrypoints/llm.py", line 210, in __init__
    engine_args = EngineArgs(
TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'
""",
        "env-library-api-drift",
    ),
    (
        "zero-offload-placement",
        """[rank2]: Traceback (most recent call last):
[rank2]:   File "/opt/conda/lib/python3.11/site-packages/deepspeed/runtime/zero/stage3.py", line 2047, in step
[rank2]:     self.unscale_and_clip_grads(sub_group_id, scaled_global_grad_norm)
[rank2]:   File "/opt/conda/lib/python3.11/site-packages/deepspeed/runtime/zero/stage3.py", line 2117, in unscale_and_clip_grads
[rank2]:     self.fp32_partitioned_groups_flat[sub_group_id].grad.mul_(1. / combined_scale)
[rank2]: RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:2 and cpu!
""",
        "env-engine-offload-placement",
    ),
    (
        "zero3-save",
        """Saving model checkpoint to /ckpt/checkpoint-500
Traceback (most recent call last):
  File "train.py", line 88, in <module>
    trainer.train()
  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 2938, in _save_checkpoint
    self.save_model(output_dir, _internal_call=True)
  File "/usr/lib/python3/site-packages/deepspeed/runtime/engine.py", line 3621, in save_16bit_model
    state_dict = self._zero3_consolidated_16bit_state_dict()
  File "/usr/lib/python3/site-packages/deepspeed/runtime/engine.py", line 3540, in _zero3_consolidated_16bit_state_dict
    state_dict[prefix + name] = param.detach().cpu()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB
""",
        "zero3-checkpoint-gather-oom",
    ),
    (
        "fsdp-cpu",
        """[rank0]: with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, FullStateDictConfig(offload_to_cpu=True)):
Saving model checkpoint to /ckpt/checkpoint-2000
[Fri Nov 20 03:14:02 2026] Out of memory: Killed process 48213 (python) total-vm:912345678kB
""",
        "fsdp-full-state-dict-cpu-oom",
    ),
    (
        "load-shards-killed",
        """Loading checkpoint shards:  50%|█████     | 2/4 [00:41<00:41, 20.5s/it]
torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 1234) of binary: /usr/bin/python3
""",
        "checkpoint-cpu-alloc-oom",
    ),
    (
        "training-oom-not-save",
        """Traceback (most recent call last):
  File "train.py", line 120, in train_step
    loss.backward()
  File "/usr/lib/python3/site-packages/torch/autograd/__init__.py", line 251, in backward
    Variable._execution_engine.run_backward(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 3 has a total capacity of 79.15 GiB
""",
        "cuda-oom-training-step",
    ),
    (
        "dataset-in-ram",
        """Generating train split: 100%|██████████| 41000000/41000000
  File "train.py", line 40, in build
    ds = load_dataset("json", data_files=files, keep_in_memory=True)
MemoryError
""",
        "host-oom-dataset-in-ram",
    ),
    (
        "dataloader-workers-oom",
        """[Fri Nov 20 03:14:02 2026] pt_data_worker invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0
[Fri Nov 20 03:14:02 2026] Out of memory: Killed process 48213 (pt_data_worker) total-vm:41234567kB
""",
        "host-oom-dataloader-workers",
    ),
    (
        "slow-tokenizer",
        """Running tokenizer on dataset:   9%|███     | 280000/2969526 [29:55<4:48:08, 155.57 examples/s]
[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800328 milliseconds before timing out.
""",
        "nccl-timeout-slow-rank",
    ),
    (
        "nccl-218-transport-setup",
        """NCCL version 2.18.3+cuda12.1
node7:4410:4532 [1] transport.cc:174 NCCL WARN Cuda failure 'invalid argument'
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3
ncclUnhandledCudaError: Call to CUDA function failed.
""",
        "env-nccl-218-transport-setup",
    ),
    (
        "zero-redundancy-consolidate-oom",
        """Traceback (most recent call last):
  File "/srv/run/ckpt.py", line 40, in save_all
    optim.consolidate_state_dict(to=0)
  File "/opt/py/lib/python3.11/site-packages/torch/distributed/optim/zero_redundancy_optimizer.py", line 585, in consolidate_state_dict
    local_state_dict = _broadcast_object(
  File "/opt/py/lib/python3.11/site-packages/torch/distributed/optim/zero_redundancy_optimizer.py", line 121, in _broadcast_object
    obj = torch.load(buffer, map_location=device)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 1 has a total capacity of 44.34 GiB of which 98.12 MiB is free.
""",
        "state-consolidation-object-collective-oom",
    ),
]


def _hs_db(pattern: str, caseless: bool):  # type: ignore[no-untyped-def]
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    flags = hyperscan.HS_FLAG_MULTILINE | (hyperscan.HS_FLAG_CASELESS if caseless else 0)
    db.compile(expressions=[pattern.encode()], ids=[0], elements=1, flags=[flags])
    return db


def _hs_matches(pattern: str, caseless: bool, line: str) -> bool:
    found: list[int] = []
    _hs_db(pattern, caseless).scan(line.encode(), match_event_handler=lambda *_a: found.append(1))
    return bool(found)


def _all_patterns() -> Iterator[tuple[Entry, str, str, bool]]:
    for e in ENTRIES:
        for s in e.signatures:
            yield e, s.id, s.pattern, s.caseless
        for c in e.context:
            yield e, c.id, c.pattern, c.caseless


def _re(pattern: str, caseless: bool) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE | (re.IGNORECASE if caseless else 0))


def _line_scores(line: str) -> dict[str, float]:
    """Per-entry sum of distinct signature weights that match `line` (the engine's per-actor rule)."""
    scores: dict[str, float] = {}
    for e in ENTRIES:
        total = sum(s.weight for s in e.signatures if _re(s.pattern, s.caseless).search(line))
        if total:
            scores[e.id] = total
    return scores


def _context_ok(entry: Entry, line: str) -> bool:
    """A context-only entry competes on a single line only if its context is on that line too."""
    return not entry.requires_context or any(_re(c.pattern, c.caseless).search(line) for c in entry.context)


def test_every_entry_loads_and_ids_match_files() -> None:
    assert len(ENTRIES) >= len(CATEGORIES)
    for path in sorted(ENTRIES_DIR.glob("*.toml")):
        assert load_entry(path).id == path.stem


def test_every_category_has_an_entry() -> None:
    covered = {e.category for e in ENTRIES}
    assert set(CATEGORIES) - covered == set()


def test_every_entry_is_complete() -> None:
    """The fields a person reads in the Slack thread are never empty or placeholders."""
    for e in ENTRIES:
        assert e.fix.snippet.strip(), e.id
        assert e.references and all(r.url.startswith("https://") for r in e.references), e.id
        assert len(e.confirm) >= 2, e.id
        assert e.related, e.id
        assert e.primary or all(s.role is Role.collateral for s in e.signatures), e.id


def test_xid_catalogue_covers_the_documented_codes() -> None:
    xids = load_xids()
    required = {
        13,
        31,
        32,
        38,
        43,
        45,
        48,
        61,
        62,
        63,
        64,
        68,
        69,
        74,
        79,
        92,
        94,
        95,
        119,
        120,
        121,
        140,
        143,
        145,
        149,
        154,
    }
    assert required <= set(xids)
    for code in (13, 31, 43, 45):
        assert xids[code].hardware is False
    for code in (48, 74, 79, 94, 95, 119):
        assert xids[code].hardware is True
    assert xids[79].action == "reboot_node"
    assert all(x.entry in BY_ID for x in xids.values())


@pytest.mark.parametrize(
    ("entry", "sig_id", "pattern", "caseless"),
    list(_all_patterns()),
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_pattern_compiles_in_hyperscan_and_re(
    entry: Entry, sig_id: str, pattern: str, caseless: bool
) -> None:
    _re(pattern, caseless)
    _hs_db(pattern, caseless)
    # a trailing quantifier makes Hyperscan report one hit per possible end offset on the same line
    assert not re.search(r"(?<!\\)[+*?]$|\}$", pattern), f"{entry.id}/{sig_id}: ends with a quantifier"


@pytest.mark.parametrize(
    ("line", "expected"), EXAMPLES, ids=[f"{i}-{e}" for i, (_, e) in enumerate(EXAMPLES)]
)
def test_example_line_is_won_by_its_entry(line: str, expected: str) -> None:
    entry = BY_ID[expected]
    hits = [s.id for s in entry.signatures if _re(s.pattern, s.caseless).search(line)]
    assert hits, f"no signature of {expected} matches"
    for s in entry.signatures:  # Hyperscan agrees with re on the example
        if s.id in hits:
            assert _hs_matches(s.pattern, s.caseless, line), f"{expected}/{s.id}: re matches, Hyperscan not"
    scores = {k: v for k, v in _line_scores(line).items() if _context_ok(BY_ID[k], line)}
    best = max(scores.items(), key=lambda kv: (kv[1], BY_ID[kv[0]].priority, [-ord(c) for c in kv[0]]))
    assert best[0] == expected, f"{best[0]} ({best[1]}) beats {expected} ({scores[expected]}): {scores}"


@pytest.mark.parametrize("line", BENIGN)
def test_benign_training_line_matches_nothing(line: str) -> None:
    for e in ENTRIES:
        for s in e.signatures:
            assert not _re(s.pattern, s.caseless).search(line), f"{e.id}/{s.id} matches a healthy line"


@pytest.mark.parametrize("line", NOT_PRIMARY)
def test_early_warning_is_never_a_primary_cause(line: str) -> None:
    for e in ENTRIES:
        for s in e.primary:
            if s.id == "xid-any":  # the engine demotes application-level Xids via the catalogue
                continue
            assert not _re(s.pattern, s.caseless).search(line), f"{e.id}/{s.id} is primary on a warning"


def test_every_entry_has_an_example() -> None:
    """Each entry is exercised by at least one realistic line (or snippet, for context-only entries)."""
    covered = {e for _, e in EXAMPLES} | {e for _, _, e in CONTEXT_CASES}
    missing = {e.id for e in ENTRIES} - covered
    assert not missing, f"entries without an example: {sorted(missing)}"


@pytest.mark.parametrize(("name", "text", "expected"), CONTEXT_CASES, ids=[c[0] for c in CONTEXT_CASES])
def test_context_refines_entry_through_the_engine(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    from knowledge.sources import discover

    (tmp_path / "combined.log").write_text(text, encoding="utf-8")
    diag = _engine().diagnose(discover([tmp_path]))
    assert diag.entry is not None and diag.entry.id == expected, (name, diag.entry, diag.alternatives)
    assert diag.category == BY_ID[expected].category


_ENGINE: list[object] = []


def _engine():  # type: ignore[no-untyped-def]
    """One compiled engine for this module (compiling all patterns is the slow part)."""
    if not _ENGINE:
        from knowledge.engine import Engine

        _ENGINE.append(Engine.load(ENTRIES_DIR))
    return _ENGINE[0]


def test_load_error_names_file_and_field(tmp_path: Path) -> None:
    good = (ENTRIES_DIR / "disk-full.toml").read_text(encoding="utf-8")
    bad = tmp_path / "disk-full.toml"
    bad.write_text(good.replace('category = "disk_full_or_io"', 'category = "disk_is_sad"'), encoding="utf-8")
    with pytest.raises(EntryError) as info:
        load_entries(tmp_path)
    assert "disk-full.toml" in str(info.value) and "category" in str(info.value)

    bad.write_text(
        good.replace("pattern = 'No space left on device'", "pattern = '(?<=x)No space'"), encoding="utf-8"
    )
    with pytest.raises(EntryError) as info:
        load_entry(bad)
    assert "disk-full.toml" in str(info.value) and "signatures.0.pattern" in str(info.value)

    bad.write_text(good.replace("[faq]", "[faq]\nbogus = 1"), encoding="utf-8")
    with pytest.raises(EntryError) as info:
        load_entry(bad)
    assert "faq.bogus" in str(info.value)

    bad.write_text(good + "\n[[[broken", encoding="utf-8")
    with pytest.raises(EntryError) as info:
        load_entry(bad)
    assert "disk-full.toml" in str(info.value) and "<toml>" in str(info.value)


def test_unknown_related_entry_is_named(tmp_path: Path) -> None:
    good = (ENTRIES_DIR / "disk-full.toml").read_text(encoding="utf-8")
    (tmp_path / "disk-full.toml").write_text(
        good.replace('related = ["filesystem-io-error"', 'related = ["no-such-entry"'), encoding="utf-8"
    )
    with pytest.raises(EntryError) as info:
        load_entries(tmp_path)
    assert "related" in str(info.value) and "no-such-entry" in str(info.value)


def test_every_signature_names_its_source() -> None:
    """Issue 12: each pattern says which code prints the line (`owner/repo@tag:path`) or which page shows it."""
    import re

    from knowledge.schema import ENTRIES_DIR, load_entries

    form = re.compile(r"^(https://\S+|[\w.-]+/[\w.-]+@[\w.+-]+:\S+)")
    unsourced = [
        f"{e.id}/{s.id}: {s.source!r}"
        for e in load_entries(ENTRIES_DIR)
        for s in [*e.signatures, *e.context]
        if not form.match(s.source)
    ]
    assert not unsourced, unsourced
