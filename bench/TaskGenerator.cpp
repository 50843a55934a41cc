#include "TaskGenerator.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>

namespace km::bench {
namespace {

// splitmix64: the same stream on every platform and standard library, so a seed always gives the same store.
class Rng {
public:
    explicit Rng(quint64 seed) : m_s(seed) {}
    quint64 next()
    {
        quint64 z = (m_s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    int below(int n) { return int(next() % quint64(n)); }
    int range(int lo, int hi) { return lo + below(hi - lo + 1); }
    double unit() { return double(next() >> 11) * 0x1.0p-53; }
    bool chance(double p) { return unit() < p; }
    const QString& pick(const QStringList& l) { return l[below(int(l.size()))]; }
    // Zipf-like: the first entries of a list come up often, the last ones rarely.
    const QString& skewed(const QStringList& l)
    {
        return l[std::min(l.size() - 1, qsizetype(double(l.size()) * std::pow(unit(), 2.5)))];
    }

private:
    quint64 m_s;
};

// The vocabulary is kept in '|'-separated tables: a line that starts with two spaces continues the record above,
// and ";;" separates lines of Python code or notes within a field.
QList<QStringList> records(const char* table)
{
    QList<QStringList> out;
    for (const QString& line : QString::fromUtf8(table).split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("  ")) && !out.isEmpty()) {
            QStringList more = line.trimmed().split(QLatin1Char('|'));
            out.last().last() += more.takeFirst();
            out.last() += more;
        } else if (!line.isEmpty()) {
            out.append(line.split(QLatin1Char('|')));
        }
    }
    return out;
}
QStringList list(const char* table)
{
    static const QRegularExpression sep(QStringLiteral("\\s*[|\\n]\\s*"));
    return QString::fromUtf8(table).split(sep, Qt::SkipEmptyParts);
}

enum FamilyField { Key, FamConsts, Args, Inputs, Shape, Flops, Bytes, Imports, FamNotes };
const char kFamilies[] = R"(rows|batch_size=4096 dim=16384|x|torch.randn(batch_size, dim)
  |`x` of shape `(batch_size, dim)`|5 * batch_size * dim|2 * 4 * batch_size * dim|
  |A row of 16384 floats is 64 KiB and fits in the shared memory of one block.
  ;;One block per row wastes the GPU when batch_size is small; split long rows across a cluster.
  ;;Reading the row once from HBM is the goal.
gemm|M=4096 N=4096 K=4096|a, b|torch.randn(M, K), torch.randn(K, N)|`a` of shape `(M, K)` and `b` of shape `(K, N)`
  |2 * M * N * K|4 * (M * K + K * N + M * N)||The op is compute-bound; 128x128x32 tensor-core tiles are a good start.
  ;;cuBLAS reaches about 70% of peak here; matching it is the bar.
  ;;A swizzled rasterisation of the output tiles improves L2 reuse.
linear|n_tokens=8192 in_features=4096 out_features=16384|x|torch.randn(n_tokens, in_features)
  |`x` of shape `(n_tokens, in_features)`|2 * n_tokens * in_features * out_features
  |4 * (n_tokens * in_features + in_features * out_features + n_tokens * out_features)|
  |The weight is stored as (out_features, in_features), as nn.Linear keeps it.;;Fold the bias add into the epilogue.
bmm|batch=128 M=512 N=512 K=256|a, b|torch.randn(batch, M, K), torch.randn(batch, K, N)
  |`a` of shape `(batch, M, K)` and `b` of shape `(batch, K, N)`|2 * batch * M * N * K
  |4 * batch * (M * K + K * N + M * N)||Each matrix is small; map several batch entries to one block.
  ;;Strided batched GEMM in cuBLAS is the baseline.
conv|batch=16 in_channels=64 out_channels=128 height=112 width=112 kernel_size=3|x
  |torch.randn(batch, in_channels, height, width)|`x` of shape `(batch, in_channels, height, width)` (NCHW)
  |2 * batch * out_channels * height * width * in_channels * kernel_size * kernel_size
  |4 * batch * (in_channels + out_channels) * height * width||Channels-last (NHWC) makes the channel sum contiguous.
  ;;cuDNN picks between implicit GEMM, FFT and Winograd algorithms; expect it to be hard to beat.
  ;;The halo of each output tile must be loaded too.
attn|batch=4 heads=16 seq_len=4096 head_dim=128|q, k, v
  |*(torch.randn(batch, heads, seq_len, head_dim) for _ in range(3))
  |`q`, `k`, `v` of shape `(batch, heads, seq_len, head_dim)`|4 * batch * heads * seq_len * seq_len * head_dim
  |4 * 4 * batch * heads * seq_len * head_dim||The full score matrix costs gigabytes of traffic; keep it on chip.
  ;;With a causal mask, skip the key tiles above the diagonal.;;The KV tiles are reused by every query tile of a head.
loss|batch_size=32768 num_classes=1000|logits, target
  |torch.randn(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))
  |`logits` of shape `(batch_size, num_classes)` and integer `target` of shape `(batch_size,)`
  |4 * batch_size * num_classes|4 * batch_size * (num_classes + 2)||Use the log-sum-exp trick so no exponent overflows.
  ;;The mean over the batch is a second reduction; a last-block-done counter avoids a second launch.
index|num_embeddings=65536 embedding_dim=1024 num_indices=32768|table, idx
  |torch.randn(num_embeddings, embedding_dim), torch.randint(0, num_embeddings, (num_indices,))
  |`table` of shape `(num_embeddings, embedding_dim)` and indices `idx` of shape `(num_indices,)`
  |num_indices * embedding_dim|4 * 2 * num_indices * embedding_dim + 8 * num_indices|
  |Random row accesses defeat the L2 cache unless the indices repeat.;;One warp per gathered row gives coalesced loads.
mlp|batch_size=1024 hidden=4096 n_layers=4|x|torch.randn(batch_size, hidden)|`x` of shape `(batch_size, hidden)`
  |2 * n_layers * batch_size * hidden * hidden|4 * n_layers * (hidden * hidden + 2 * batch_size * hidden)|
  |Each layer is a GEMM with a GELU epilogue; fuse them.;;CUDA graphs remove the launch gaps between layers.
cnn|batch=32 in_channels=3 height=224 width=224 base_width=64 num_classes=1000|x
  |torch.randn(batch, in_channels, height, width)|images `x` of shape `(batch, in_channels, height, width)`|||
  |Fold batch normalisation into the convolution weights at inference time.;;Fuse each convolution with its ReLU.
xfmr|batch=8 seq_len=1024 d_model=1024 n_heads=16 ffn_mult=4|x|torch.randn(batch, seq_len, d_model)
  |`x` of shape `(batch, seq_len, d_model)`||||Most time goes to the four GEMMs; fuse the layer norms and residual adds.
rnn|batch=64 seq_len=512 input_size=256 hidden_size=1024 num_layers=2|x|torch.randn(batch, seq_len, input_size)
  |`x` of shape `(batch, seq_len, input_size)`|||
  |The time steps are sequential; a persistent kernel keeps the weights on chip.
hf|batch_size=8 sequence_length=512 vocab_size=50257|x|torch.randint(0, vocab_size, (batch_size, sequence_length))
  |token ids `x` of shape `(batch_size, sequence_length)`|||from transformers import AutoConfig, AutoModelForCausalLM
  |Replace the attention and MLP blocks of the Hugging Face model with custom kernels; keep the weights.)";

// Level 1: one op (also the first stage of a fused level-2 task); 0: an epilogue of a fused task; 3, 4: a model.
enum OpField { Level, Slug, Family, Cats, Title, What, Init, Body, Forbidden, Math, Consts };
const char kOps[] = R"(1|relu|rows|activation elementwise|ReLU|applies the rectified linear unit to every element of|
  |y = torch.relu(x)|torch.relu torch.nn.functional.relu torch.clamp|y_{ij} = \max(x_{ij}, 0)|
1|gelu-tanh|rows|activation|GELU, tanh approximation|applies the tanh approximation of GELU to|
  |y = F.gelu(x, approximate="tanh")|torch.nn.functional.gelu torch.tanh
  |y = \tfrac{1}{2} x \left(1 + \tanh\left(\sqrt{2/\pi}\,(x + 0.044715 x^3)\right)\right)|
1|silu|rows|activation|SiLU (swish)|applies SiLU, x times sigmoid(x), to||y = F.silu(x)
  |torch.nn.functional.silu torch.sigmoid|y = \frac{x}{1 + e^{-x}}|
1|leaky-relu|rows|activation elementwise|Leaky ReLU|applies leaky ReLU with a small negative slope to|
  |y = F.leaky_relu(x, negative_slope)|torch.nn.functional.leaky_relu torch.where
  |y = \max(x, 0) + \alpha \min(x, 0)|negative_slope=0.01
1|softmax-rows|rows|softmax|Row-wise softmax|normalises every row into a probability distribution of|
  |y = torch.softmax(x, dim=-1)|torch.softmax torch.nn.functional.softmax torch.Tensor.softmax
  |y_{ij} = \frac{e^{x_{ij} - m_i}}{\sum_k e^{x_{ik} - m_i}}|
1|log-softmax|rows|softmax|Row-wise log-softmax|takes the logarithm of the softmax of every row of|
  |y = torch.log_softmax(x, dim=-1)|torch.log_softmax torch.nn.functional.log_softmax
  |y_{ij} = x_{ij} - m_i - \log \sum_k e^{x_{ik} - m_i}|
1|layernorm|rows|normalization|Layer normalisation|normalises every row to zero mean and unit variance of
  |self.norm = nn.LayerNorm(dim, eps=eps)|y = self.norm(x)|torch.nn.functional.layer_norm torch.nn.LayerNorm
  |y_{ij} = \gamma_j \frac{x_{ij} - \mu_i}{\sqrt{\sigma_i^2 + \epsilon}} + \beta_j|eps=1e-05
1|rmsnorm|rows|normalization|RMS normalisation|divides every row by its root mean square in|
  |y = x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)|torch.rsqrt torch.nn.functional.rms_norm
  |y_{ij} = x_{ij} / \sqrt{\tfrac{1}{D}\sum_k x_{ik}^2 + \epsilon}|eps=1e-06
1|row-sum|rows|reduction|Row sum|sums every row of||y = torch.sum(x, dim=-1)|torch.sum torch.Tensor.sum
  |y_i = \sum_{j} x_{ij}|
1|argmin|rows|reduction indexing|Argmin along rows|returns the index of the smallest element of each row of|
  |y = torch.argmin(x, dim=-1)|torch.argmin torch.min|y_i = \operatorname{argmin}_j x_{ij}|
1|cumsum|rows|scan|Inclusive prefix sum|computes the inclusive prefix sum along every row of|
  |y = torch.cumsum(x, dim=-1)|torch.cumsum torch.Tensor.cumsum|y_{ij} = \sum_{k \le j} x_{ik}|
1|clamp-scale|rows|elementwise|Scale and clamp|scales and clips every element of|
  |y = torch.clamp(x * scale, min=-clip, max=clip)|torch.clamp torch.clip|y = \min(\max(s x, -c), c)|scale=0.75 clip=2.5
1|gemm|gemm|gemm|Matrix multiplication|multiplies the matrices||y = torch.matmul(a, b)
  |torch.matmul torch.mm torch.einsum|C_{ij} = \sum_{k=0}^{K-1} A_{ik} B_{kj}|
1|gemm-einsum|gemm|gemm|GEMM written as an einsum|contracts the shared dimension of|
  |y = torch.einsum("mk,kn->mn", a, b)|torch.einsum torch.matmul|C_{mn} = \sum_k A_{mk} B_{kn}|
1|linear|linear|gemm|Linear layer|applies a dense layer with bias to|self.fc = nn.Linear(in_features, out_features)
  |y = self.fc(x)|torch.nn.functional.linear torch.matmul torch.addmm|Y = X W^\top + b|
1|bmm|bmm|batched-gemm|Batched matrix multiplication|multiplies every pair of matrices of||y = torch.bmm(a, b)
  |torch.bmm torch.matmul torch.baddbmm|C_{bij} = \sum_k A_{bik} B_{bkj}|
1|conv2d|conv|convolution|2D convolution|convolves the image batch
  |self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)|y = self.conv(x)
  |torch.nn.functional.conv2d torch.nn.Conv2d torch.nn.functional.unfold
  |Y_{nohw} = \sum_{c,r,s} W_{ocrs} X_{n,c,h+r,w+s}|
1|conv-transpose2d|conv|convolution|Transposed 2D convolution|upsamples with a strided transposed convolution
  |self.conv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=2, padding=1, output_padding=1)
  |y = self.conv(x)|torch.nn.functional.conv_transpose2d torch.nn.ConvTranspose2d
  |Y = \operatorname{conv}^\top_{s=2}(X, W)|
1|depthwise-conv2d|conv|convolution|Depthwise 2D convolution|filters every channel separately of
  |self.conv = nn.Conv2d(in_channels, in_channels, kernel_size, padding=kernel_size // 2, groups=in_channels)
  |y = self.conv(x)|torch.nn.functional.conv2d torch.nn.Conv2d|Y_{nchw} = \sum_{r,s} W_{crs} X_{n,c,h+r,w+s}|
1|maxpool2d|conv|pooling|2D max pooling|takes window maxima of|self.pool = nn.MaxPool2d(kernel_size, stride=2)
  |y = self.pool(x)|torch.nn.functional.max_pool2d torch.nn.MaxPool2d|Y_{nchw} = \max_{r,s} X_{n,c,2h+r,2w+s}|
1|groupnorm|conv|normalization|Group normalisation|normalises groups of channels of
  |self.gn = nn.GroupNorm(num_groups, in_channels)|y = self.gn(x)|torch.nn.functional.group_norm
  |Y = (X - \mu_g) / \sqrt{\sigma_g^2 + \epsilon}|num_groups=8
1|sdpa-causal|attn|attention softmax|Causal scaled dot-product attention|attends causally over|
  |y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
  |torch.nn.functional.scaled_dot_product_attention torch.softmax torch.matmul
  |O = \operatorname{softmax}\left(Q K^\top / \sqrt{d} + M\right) V|
1|attention|attn|attention softmax batched-gemm|Multi-head attention core|computes softmax(q k^T) v over|
  |scores = torch.matmul(q, k.transpose(-2, -1)) * head_dim ** -0.5
  ;;y = torch.matmul(torch.softmax(scores, dim=-1), v)|torch.matmul torch.softmax torch.bmm
  |O = \operatorname{softmax}(Q K^\top / \sqrt{d})\, V|
1|cross-entropy|loss|loss softmax|Cross-entropy loss|computes the mean cross-entropy of|
  |y = F.cross_entropy(logits, target)|torch.nn.functional.cross_entropy torch.log_softmax
  |L = -\frac{1}{B}\sum_i \log \operatorname{softmax}(z_i)_{t_i}|
1|mse-onehot|loss|loss|MSE against one-hot targets|computes the mean squared error of the softmax of|
  |y = F.mse_loss(torch.softmax(logits, dim=-1), F.one_hot(target, num_classes).float())
  |torch.nn.functional.mse_loss|L = \frac{1}{BC}\sum_{ic} (p_{ic} - [c = t_i])^2|
1|embedding|index|indexing|Embedding lookup|gathers rows of||y = F.embedding(idx, table)
  |torch.nn.functional.embedding torch.index_select|Y_{i} = T_{\mathrm{idx}_i}|
1|index-select|index|indexing|Row gather with index_select|gathers the indexed rows of|
  |y = torch.index_select(table, 0, idx)|torch.index_select torch.gather|Y_{ij} = T_{\mathrm{idx}_i, j}|
0|relu||activation|ReLU|||y = torch.relu(y)|torch.relu|\max(\cdot, 0)|
0|gelu||activation|GELU|||y = F.gelu(y)|torch.nn.functional.gelu|\operatorname{GELU}|
0|silu||activation|SiLU|||y = F.silu(y)|torch.nn.functional.silu|x\,\sigma(x)|
0|scale||elementwise|scaling|||y = y * scale_factor||s \cdot|scale_factor=0.5
0|bias||elementwise|bias add|||y = y + bias_value||+ b|bias_value=0.1
0|tanh||activation|tanh|||y = torch.tanh(y)|torch.tanh|\tanh|
0|softmax||softmax|softmax|||y = torch.softmax(y, dim=-1)|torch.softmax|\operatorname{softmax}|
0|layernorm||normalization|layer normalisation|||y = F.layer_norm(y, y.shape[-1:])|torch.nn.functional.layer_norm
  |\operatorname{LN}|
0|clamp||elementwise|clamp|||y = torch.clamp(y, min=clamp_min, max=clamp_max)|torch.clamp|\operatorname{clamp}
  |clamp_min=-1.5 clamp_max=1.5
0|sigmoid-gate||activation|sigmoid gate|||y = y * torch.sigmoid(y)|torch.sigmoid|\sigma(y) \odot|
3|mlp-block|mlp|model gemm activation|Deep MLP|runs a stack of GELU linear layers over
  |self.layers = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(n_layers)]);;self.act = nn.GELU()
  |y = x;;for layer in self.layers:;;    y = self.act(layer(y))|torch.nn.functional.linear torch.matmul
  |h_{l+1} = \operatorname{GELU}(W_l h_l + b_l)|
3|tiny-cnn|cnn|model convolution pooling|Small CNN classifier|classifies
  |self.features = nn.Sequential(;;    nn.Conv2d(in_channels, base_width, 3, padding=1),
  ;;    nn.BatchNorm2d(base_width),;;    nn.ReLU(),;;    nn.MaxPool2d(2),
  ;;    nn.Conv2d(base_width, 2 * base_width, 3, padding=1),;;    nn.ReLU(),;;    nn.AdaptiveAvgPool2d(1),;;)
  ;;self.classifier = nn.Linear(2 * base_width, num_classes)|y = self.classifier(torch.flatten(self.features(x), 1))
  |torch.nn.functional.conv2d|\hat{y} = W \operatorname{pool}(\operatorname{ReLU}(\operatorname{conv}(x)))|
3|transformer-block|xfmr|model attention normalization gemm|Transformer encoder block
  |runs one pre-norm transformer encoder block over
  |self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
  ;;self.norm1 = nn.LayerNorm(d_model);;self.norm2 = nn.LayerNorm(d_model);;self.ffn = nn.Sequential(
  ;;    nn.Linear(d_model, ffn_mult * d_model), nn.GELU(), nn.Linear(ffn_mult * d_model, d_model);;)
  |h = self.norm1(x);;y = x + self.attn(h, h, h, need_weights=False)[0];;y = y + self.ffn(self.norm2(y))
  |torch.nn.functional.scaled_dot_product_attention
  |y = x + \operatorname{MHA}(\operatorname{LN}(x)) + \operatorname{FFN}(\cdot)|
3|resnet-stack|cnn|model convolution normalization|ResNet basic-block stack|runs two residual basic blocks over
  |self.stem = nn.Conv2d(in_channels, base_width, 7, stride=2, padding=3);;self.blocks = nn.ModuleList([
  ;;    nn.Sequential(nn.Conv2d(base_width, base_width, 3, padding=1), nn.BatchNorm2d(base_width), nn.ReLU(),
  ;;                  nn.Conv2d(base_width, base_width, 3, padding=1), nn.BatchNorm2d(base_width))
  ;;    for _ in range(2);;])|y = torch.relu(self.stem(x));;for block in self.blocks:;;    y = torch.relu(y + block(y))
  |torch.nn.functional.conv2d torch.nn.functional.batch_norm|y_{l+1} = \operatorname{ReLU}(y_l + F(y_l))|
3|lstm|rnn|model gemm|Two-layer LSTM|runs a stacked LSTM over
  |self.rnn = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)|y, _ = self.rnn(x)
  |torch.nn.LSTM torch.lstm|c_t = f_t \odot c_{t-1} + i_t \odot g_t|
4|gpt2|hf|model attention|GPT-2 forward pass|runs the GPT-2 decoder over
  |config = AutoConfig.from_pretrained("gpt2");;self.model = AutoModelForCausalLM.from_config(config)
  |y = self.model(x).logits|||
4|opt-125m|hf|model attention|OPT-125M forward pass|runs the OPT decoder over
  |config = AutoConfig.from_pretrained("facebook/opt-125m");;self.model = AutoModelForCausalLM.from_config(config)
  |y = self.model(x).logits|||)";

// Fixed performance notes, most common first.
const char kNotes[] = R"(The op is bandwidth-bound: read every input element once and write every output element once.
Use coalesced global memory loads so that consecutive threads of a warp touch consecutive addresses.
Handle the tail without assuming the size is a multiple of the block size.
Launch enough thread blocks to fill every SM; a grid smaller than the number of SMs leaves the GPU idle.
Vectorised loads (float4, or half2 for fp16) cut the number of memory instructions by four.
Accumulate in fp32 even when the inputs are half precision, and round once at the end.
A warp-level reduction with __shfl_down_sync avoids shared memory round trips for the last 32 partial sums.
Tensor cores (mma.sync or WMMA) give an order of magnitude more throughput than CUDA cores for fp16 and bf16.
Avoid shared memory bank conflicts by padding each tile row by one element or by swizzling the layout.
Fuse the epilogue into the main kernel so the output is written to global memory only once.
The L2 cache holds the working set of the small configuration, so its timings are not representative.
Use cp.async to overlap the global-to-shared copies of the next tile with the math of the current tile.
Use the online softmax recurrence: keep a running maximum and rescale the running sum when it changes.
Atomics on global memory serialise: reduce within the block first and issue one atomicAdd per block.
A Welford update computes mean and variance in one pass and is numerically stable.
Implicit GEMM computes the convolution as a matrix product without materialising the im2col buffer.
Stream-K decomposition balances the work across SMs when the number of tiles does not divide evenly.
The Tensor Memory Accelerator (TMA) copies whole tiles asynchronously and frees registers for the math.
wgmma instructions on sm_90 issue warpgroup-wide matrix multiply-accumulate operations.
ldmatrix loads fragments for mma.sync directly from shared memory in the layout the tensor cores expect.
A Blelloch scan does O(n) work with an up-sweep and a down-sweep; Kogge-Stone is shallower but does more work.
Kahan summation keeps the rounding error of a long fp32 sum bounded independently of its length.
Winograd F(2x2, 3x3) reduces the multiplications of a 3x3 convolution by a factor of 2.25.
Philox counter-based random numbers make dropout masks reproducible without storing them.)";
// Parts of generated notes, most common first in each list.
const char kTechniques[] = R"(tiling|vectorised loads|loop unrolling|shared memory staging|register blocking
  |warp shuffles|kernel fusion|a grid-stride loop|thread coarsening|software pipelining|asynchronous copies
  |a persistent grid|launch bounds|fast math intrinsics|split-K|predicated tail handling|double buffering
  |a block-wide tree reduction|swizzled tile layouts|half2 arithmetic|occupancy tuning|cooperative groups|CUDA graphs
  |stream overlap|bit-packed masks|ldmatrix fragments|a segmented scan|radix selection|TMA descriptors
  |cluster multicast|dynamic parallelism|texture fetches)";
const char kEffects[] = R"(cuts global memory traffic|hides memory latency|keeps the SMs busy|raises achieved occupancy
  |reduces register pressure|removes a kernel launch|improves L2 reuse|avoids bank conflicts|saves issue slots
  |keeps the tensor cores fed|balances work across SMs|shortens the critical path|removes redundant loads
  |avoids warp divergence|keeps the accumulators in registers|lowers the tail effect)";
const char kConditions[] = R"(the rows are long|the batch is small|the inner dimension is large
  |the sizes are not multiples of 8|the data is fp16|the problem fits in L2|the grid has fewer blocks than SMs
  |the output is written once|the inputs are reused|the shapes are odd|the kernel is memory-bound
  |the reduction is along the last dimension)";
// About 3% of descriptions carry one of these, so each of their words is in roughly 0.2% of the tasks.
const char kRare[] = R"(A Strassen-style split is not worth it at these sizes.|Morton order improves tile locality.
  |Householder reflections are not needed here.|A Cholesky factorisation would change the op.
  |Sinkhorn iterations are out of scope.|Karatsuba multiplication does not apply to floating point.
  |A Hadamard rotation before quantisation is a separate task.|Chebyshev polynomials approximate the tail.
  |Evaluate the polynomial with Horner's rule.|Remez minimax coefficients are in the spec.
  |Givens rotations would serialise the rows.|Sobol sequences seed the test inputs.
  |Montgomery reduction does not apply.|A Goldschmidt division refines the reciprocal.
  |Hilbert-curve block order helps L2 reuse.|Toom-Cook splitting is not useful.)";
const char kSpecNotes[] = R"(All tensors are contiguous and row-major; indices are zero-based.
The result must match the reference within the tolerance of the dtype.
Shapes are the module-level constants of the reference program; every configuration overrides some of them.
Only the final output is compared; intermediate results need not be bit-identical.
For a reduction the order of summation is free, so the result may differ from the reference by rounding.
$$ e = \max_i \lvert y_i - \hat{y}_i \rvert / (a + r \lvert \hat{y}_i \rvert) $$ with $a$ = atol, $r$ = rtol.
A solution passes when $e \le 1$ for every configuration and every trial.
Inputs are drawn from $\mathcal{N}(0, 1)$ unless stated otherwise.
Arithmetic in the dtype of the task rounds to nearest even; accumulation may use a wider type.
The output is a fresh tensor; the inputs must not be modified in place.
Non-finite values never occur in the inputs, so the output must be finite everywhere.
The solution may allocate workspace, but its size must not depend on the values of the inputs.)";
const char kGpus[] = R"(A100|H100|L4|RTX 4090|V100|T4|L40S|A10G)";
const char kTags[] = R"(memory-bound|compute-bound|tensor-cores|reduction|online-softmax|epilogue-fusion|vectorized
  |warp-shuffle|tail-handling|fp16|split-k|persistent|atomics|mlp|cnn|transformer|odd-shape|causal-mask)";
const char kConfigNames[] = R"(small|tiny|odd-shape|tail|large|wide|tall|square|prime|unaligned|batch-1|long-seq)";
const char kTitleForms[] = R"(%1 over %2 in %3|%1 (%3)|%1: %2, %3|%1 on %2|%1 for %3 inputs|%1, %4)";
const char kTitleVariants[] = R"(large batch|odd shape|small batch|long rows|tall-skinny|square|prime sizes|unaligned)";

struct Vocab {
    QList<QStringList> families = records(kFamilies), ops = records(kOps);
    QStringList notes = list(kNotes), techniques = list(kTechniques), effects = list(kEffects),
                conditions = list(kConditions), rare = list(kRare), specNotes = list(kSpecNotes), gpus = list(kGpus),
                tags = list(kTags), configNames = list(kConfigNames), titleForms = list(kTitleForms),
                titleVariants = list(kTitleVariants);
};

// Fills %1..%n by name: QString::arg() with several arguments would skip a gap in the numbering.
QString fill(QString form, const QStringList& values)
{
    for (int i = 0; i < values.size(); ++i)
        form.replace(QStringLiteral("%%1").arg(i + 1), values[i]);
    return form;
}

QString generatedNote(const Vocab& v, Rng& r)
{
    const QString t = r.skewed(v.techniques), u = r.skewed(v.techniques), e = r.skewed(v.effects),
                  c = r.skewed(v.conditions);
    const char* forms[] = {"%1 %3 when %4.", "Prefer %1 over %2 here: it %3.", "If %4, %1 %3."};
    const QString note = fill(QString::fromLatin1(forms[r.below(3)]), {t, u, e, c});
    return note.left(1).toUpper() + note.mid(1);
}

// Appends lines (fixed notes first, then generated ones, never the same twice) until text reaches target characters.
void pad(QString& text, int target, const Vocab& v, Rng& r, const QString& prefix, int fixedNotes)
{
    QStringList used;
    for (int attempt = 0; text.size() < target && attempt < 400; ++attempt) {
        const QString note = used.size() < fixedNotes ? r.skewed(v.notes) : generatedNote(v, r);
        if (!used.contains(note)) {
            used.append(note);
            text += prefix + note + QLatin1Char('\n');
        }
    }
}

// Appends a dated log of reference timings (date, GPU, configuration, ms) until text reaches target characters.
void timings(QString& text, int target, const Vocab& v, Rng& r, const QList<TaskConfig>& configs, const QString& head,
             const QString& row, const QString& tail)
{
    if (text.size() + head.size() + tail.size() >= target)
        return;
    text += head;
    for (QDate day = QDate(2024, 1, 1).addDays(r.below(365)); text.size() + tail.size() < target;) {
        day = day.addDays(r.range(1, 9));
        const int c = r.below(int(configs.size()) + 1);
        text += fill(row, {day.toString(Qt::ISODate), r.pick(v.gpus),
                           c == 0 ? QStringLiteral("default") : configs[c - 1].name,
                           QString::number(r.range(1, 99999) / 100.0)});
    }
    text += tail;
}

struct Const {
    QString name;
    QVariant value;  // qint64 or double
};
QList<Const> constants(const QString& spec, Rng& r, bool vary)
{
    QList<Const> out;
    for (const QString& kv : spec.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString name = kv.section(QLatin1Char('='), 0, 0), text = kv.section(QLatin1Char('='), 1);
        if (text.contains(QLatin1Char('.')) || text.contains(QLatin1Char('e'))) {
            out.append({name, text.toDouble()});
            continue;
        }
        qint64 n = text.toLongLong();
        if (vary && n >= 16)  // vary the shapes: powers of two apart, a fifth of them odd
            n = std::max<qint64>(1, (r.chance(0.5) ? n << r.below(2) : n >> r.range(1, 2)) +
                                        (r.chance(0.2) ? r.range(1, 63) : 0));
        out.append({name, n});
    }
    return out;
}
QString pyValue(const QVariant& v)
{
    return v.typeId() == QMetaType::Double ? QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest)
                                           : v.toString();
}

// What the three presentations are written from.
struct Parts {
    const QStringList* fam = nullptr;
    QList<const QStringList*> stages;  // the op, then the epilogues of a fused task
    QList<Const> consts;
    QString headline;
};

QString describe(const Task& t, const Parts& p, const Vocab& v, Rng& r)
{
    const QStringList& fam = *p.fam;
    QStringList defaults, epilogues;
    for (const Const& c : p.consts)
        defaults.append(c.name + QStringLiteral(" = ") + pyValue(c.value));
    for (const QStringList* op : p.stages.mid(1))
        epilogues.append((*op)[Title]);
    QString d = fill(QStringLiteral("# %1\n\nThe kernel %2 %3, %4 (defaults: `%5`).\n\n"),
                     {t.title, (*p.stages.first())[What], fam[Shape], t.dtype, defaults.join(QStringLiteral(", "))});
    if (!epilogues.isEmpty())
        d += QStringLiteral("The epilogue applies %1 to the result before it is written.\n\n")
                 .arg(epilogues.join(QStringLiteral(", then ")));
    if (!t.forbiddenOps.isEmpty() && r.chance(0.5))
        d += QStringLiteral("The solution must not call `%1`.\n\n").arg(t.forbiddenOps.join(QStringLiteral("`, `")));
    if (r.chance(0.03))
        d += r.pick(v.rare) + QStringLiteral("\n\n");
    d += QStringLiteral("Performance notes:\n");
    const QStringList famNotes = fam[FamNotes].split(QStringLiteral(";;"), Qt::SkipEmptyParts);
    for (int n = famNotes.isEmpty() ? 0 : r.range(1, int(famNotes.size())), i = 0; i < n; ++i)
        d += QStringLiteral("- ") + famNotes[i] + QLatin1Char('\n');
    pad(d, int(d.size()) + r.range(100, 900), v, r, QStringLiteral("- "), r.range(1, 3));
    timings(d, r.range(500, 3000), v, r, t.configs,
            QStringLiteral("\nReference timings (PyTorch eager):\n\n"
                           "| date | GPU | configuration | ms |\n|---|---|---|---:|\n"),
            QStringLiteral("| %1 | %2 | %3 | %4 |\n"), {});
    return d;
}

QString referenceCode(const Task& t, const Parts& p, const Vocab& v, Rng& r)
{
    const QStringList& fam = *p.fam;
    QString code = QStringLiteral("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n");
    if (!fam[Imports].isEmpty())
        code += fam[Imports] + QLatin1Char('\n');
    code += QLatin1Char('\n');
    for (const Const& c : p.consts)
        code += c.name + QStringLiteral(" = ") + pyValue(c.value) + QLatin1Char('\n');
    code += QStringLiteral("\n\nclass Model(nn.Module):\n    \"\"\"%1.\"\"\"\n\n    def __init__(self):\n"
                           "        super().__init__()\n")
                .arg(t.title);
    for (const QStringList* op : p.stages)
        for (const QString& line : (*op)[Init].split(QStringLiteral(";;"), Qt::SkipEmptyParts))
            code += QStringLiteral("        ") + line + QLatin1Char('\n');
    code += QStringLiteral("\n    def forward(self, %1):\n").arg(fam[Args]);
    pad(code, int(code.size()) + r.range(0, 250), v, r, QStringLiteral("        # "), 0);
    for (const QStringList* op : p.stages)
        for (const QString& line : (*op)[Body].split(QStringLiteral(";;"), Qt::SkipEmptyParts))
            code += QStringLiteral("        ") + line + QLatin1Char('\n');
    code += QStringLiteral("        return y\n\n\ndef get_inputs():\n    inputs = [%1]\n").arg(fam[Inputs]);
    if (t.dtype != QLatin1String("float32") && t.dtype != QLatin1String("mixed"))
        code += QStringLiteral("    inputs = [t.to(torch.%1) if t.is_floating_point() else t for t in inputs]\n")
                    .arg(t.dtype);
    code += QStringLiteral("    return inputs\n\n\ndef get_init_inputs():\n    return []\n");
    timings(code, r.range(1000, 4000), v, r, t.configs,
            QStringLiteral("\n\n# Eager PyTorch timings in ms, for comparison.\nREFERENCE_MS = {\n"),
            QStringLiteral("    (\"%1\", \"%2\", \"%3\"): %4,\n"), QStringLiteral("}\n"));
    return code;
}

QString specText(const Task& t, const Parts& p, const Vocab& v, Rng& r)
{
    QStringList maths;
    for (const QStringList* op : p.stages)
        maths.append((*op)[Math]);
    QString sp = fill(QStringLiteral("# %1\n\nInputs: %2, dtype %3.\n\n$$\n%4\n$$\n\n"
                                     "| symbol | default |\n|---|---|\n"),
                      {p.headline, (*p.fam)[Shape], t.dtype, maths.join(QStringLiteral(" \\circ "))});
    for (const Const& c : p.consts)
        sp += QStringLiteral("| $\\texttt{%1}$ | %2 |\n").arg(c.name, pyValue(c.value));
    for (const TaskConfig& c : t.configs)
        sp += QStringLiteral("\nConfiguration `%1` overrides %2.\n")
                  .arg(c.name, c.values.keys().join(QStringLiteral(", ")));
    QStringList notes = v.specNotes;
    for (int target = r.range(200, 2000); sp.size() < target && !notes.isEmpty();)
        sp += QLatin1Char('\n') + notes.takeAt(r.below(int(notes.size()))) + QLatin1Char('\n');
    return sp;
}

Task makeTask(const Vocab& v, int index, quint64 seed)
{
    Rng r(seed * 0x2545F4914F6CDD1DULL + quint64(index));  // task i is the same whatever N is
    const double levelDraw = r.unit();
    const int level = levelDraw < 0.5 ? 1 : levelDraw < 0.85 ? 2 : levelDraw < 0.97 ? 3 : 4;
    QList<const QStringList*> candidates, epilogues;
    for (const QStringList& op : v.ops) {
        const int l = op[Level].toInt();
        if (l == 0)
            epilogues.append(&op);
        else if (level == 2 ? l == 1 && op[Family] != QLatin1String("loss") && op[Family] != QLatin1String("index") &&
                                  !op[Cats].contains(QLatin1String("reduction"))
                            : l == level)
            candidates.append(&op);
    }
    Parts p;
    p.stages.append(candidates[r.below(int(candidates.size()))]);
    const QStringList& primary = *p.stages.first();
    p.fam = &*std::find_if(v.families.cbegin(), v.families.cend(),
                           [&](const QStringList& f) { return f[Key] == primary[Family]; });
    for (int n = level == 2 ? r.range(1, 3) : 0; p.stages.size() <= n;)
        if (const QStringList* e = epilogues[r.below(int(epilogues.size()))]; !p.stages.contains(e))
            p.stages.append(e);

    Task t;
    t.level = level;
    QStringList slugs, titles;
    p.consts = constants((*p.fam)[FamConsts], r, true);
    for (const QStringList* op : p.stages) {
        slugs.append((*op)[Slug]);
        titles.append((*op)[Title]);
        p.consts += constants((*op)[Consts], r, false);
        for (const QString& c : (*op)[Cats].split(QLatin1Char(' ')))
            if (!t.categories.contains(c))
                t.categories.append(c);
        t.forbiddenOps += (*op)[Forbidden].split(QLatin1Char(' '), Qt::SkipEmptyParts);
    }
    if (level == 2)
        t.categories.prepend(QStringLiteral("fused"));
    t.forbiddenOps.removeDuplicates();
    if (r.chance(0.3))
        t.forbiddenOps.clear();
    t.id = QStringLiteral("%1%2-%3")
               .arg(level >= 2 ? QStringLiteral("l%1-").arg(level) : QString(), slugs.join(QLatin1Char('-')))
               .arg(index, 5, 10, QLatin1Char('0'));
    const double dtypeDraw = r.unit();
    const bool integral = primary[Family] == QLatin1String("index");
    t.dtype = QString::fromLatin1(dtypeDraw < 0.6    ? "float32"
                                  : dtypeDraw < 0.75 ? "float16"
                                  : dtypeDraw < 0.87 ? "bfloat16"
                                  : dtypeDraw < 0.91 ? "float64"
                                  : dtypeDraw < 0.96 ? "mixed"
                                  : integral         ? "int32"
                                                     : "float32");
    QStringList dims;
    for (const Const& c : p.consts)
        if (c.value.typeId() == QMetaType::LongLong && dims.size() < 3)
            dims.append(c.value.toString());
    p.headline = titles.first();
    if (level == 2)
        p.headline += QStringLiteral(" followed by ") + titles.mid(1).join(QStringLiteral(", "));
    t.title = fill(r.pick(v.titleForms), {p.headline, dims.join(QLatin1Char('x')), t.dtype, r.pick(v.titleVariants)});
    const double statusDraw = r.unit();
    t.status = statusDraw < 0.6    ? ReviewStatus::Draft
               : statusDraw < 0.75 ? ReviewStatus::InReview
               : statusDraw < 0.9  ? ReviewStatus::Accepted
               : statusDraw < 0.95 ? ReviewStatus::Rejected
                                   : ReviewStatus::NeedsChanges;
    for (int n = r.range(1, 4); t.tags.size() < n;)
        if (const QString& tag = r.pick(v.tags); !t.tags.contains(tag))
            t.tags.append(tag);
    const double tolerances[] = {1e-5, 1e-4, 1e-3, 1e-2};
    if (r.chance(0.2))
        t.tolerance = Tolerance{tolerances[r.below(4)], tolerances[r.below(4)]};
    t.flopsFormula = (*p.fam)[Flops];
    t.bytesFormula = (*p.fam)[Bytes];
    if (const double sourceDraw = r.unit(); level == 4 || sourceDraw < 0.25) {
        t.source.kind = SourceKind::KernelBench;
        t.source.kbLevel = level;
        t.source.kbProblem = r.range(1, 100);
        t.source.kbName = QStringLiteral("%1_%2.py").arg(t.source.kbProblem).arg(slugs.join(QLatin1Char('_')));
    } else if (sourceDraw < 0.4) {
        t.source.kind = SourceKind::File;
        t.source.path = QStringLiteral("imports/batch-%1.jsonl").arg(index / 500);
        t.source.line = index % 500 + 1;
    }
    for (int n = r.below(4); t.configs.size() < n;) {
        const QString& name = r.pick(v.configNames);
        if (std::any_of(t.configs.cbegin(), t.configs.cend(), [&](const TaskConfig& c) { return c.name == name; }))
            continue;
        TaskConfig c{name, {}};
        for (int k = r.range(1, 3); k > 0; --k) {
            const Const& k0 = p.consts[r.below(int(p.consts.size()))];
            c.values.insert(k0.name, k0.value.typeId() == QMetaType::Double
                                         ? QVariant(k0.value.toDouble() * 0.5)
                                         : QVariant(std::max<qint64>(1, k0.value.toLongLong() / r.range(8, 64))));
        }
        t.configs.append(c);
    }

    // Most tasks have a description and a reference, fewer a spec; each task shows a non-empty subset.
    const bool hasDescription = r.chance(0.92), hasReference = r.chance(0.85) || !hasDescription;
    const bool hasSpec = r.chance(0.7) && !primary[Math].isEmpty();
    if (hasDescription)
        t.description = describe(t, p, v, r);
    if (hasReference)
        t.reference = referenceCode(t, p, v, r);
    if (hasSpec)
        t.spec = specText(t, p, v, r);
    for (const auto& [has, pr] :
         {std::pair{hasDescription, Presentation::Description}, std::pair{hasReference, Presentation::Reference},
          std::pair{hasSpec, Presentation::Spec}})
        if (has && r.chance(0.6))
            t.shown.add(pr);
    if (t.shown.isEmpty())
        t.shown.add(hasReference && (r.chance(0.5) || !hasDescription) ? Presentation::Reference
                                                                       : Presentation::Description);
    return t;
}

const Vocab& vocab()
{
    static const Vocab v;
    return v;
}
}  // namespace

QString vocabularyProblem()
{
    for (const auto& [table, fields] : {std::pair{&vocab().ops, 11}, std::pair{&vocab().families, 9}})
        for (const QStringList& rec : *table)
            if (rec.size() != fields)
                return QStringLiteral("vocabulary record '%1' has %2 fields").arg(rec.first()).arg(rec.size());
    return {};
}

Task generateTask(int index, quint64 seed)
{
    return makeTask(vocab(), index, seed);
}

}  // namespace km::bench
