#include "curate/OpCategories.h"

#include "model/Task.h"

#include <QRegularExpression>
#include <QSet>

namespace km {

namespace {
struct Rule {
    const char* pattern;  // matched against code with comments and strings removed
    const char* category;
};

// Calls as written through torch., nn., F. or as tensor methods.
constexpr Rule kRules[] = {
    {R"(\b(?:nn\.)?(?:Conv[123]d|ConvTranspose[123]d)\b|\b(?:F|functional|torch)\.conv(?:_transpose)?[123]d\b)",
     "convolution"},
    {R"(\b(?:torch\.)?(?:bmm|baddbmm)\b|\.bmm\(|\btorch\.einsum\s*\(\s*['"][a-z]+\s*[a-z]*,)", "batched-gemm"},
    {R"(\btorch\.(?:matmul|mm|addmm|mv|einsum|tensordot)\b|\.(?:matmul|mm)\(|\bnn\.(?:Linear|Bilinear)\b|\bF\.linear\b|@)",
     "gemm"},
    {R"(\b(?:softmax|log_softmax|Softmax|LogSoftmax|Softmin|softmin)\b)", "softmax"},
    {R"(\b(?:scaled_dot_product_attention|MultiheadAttention|Transformer(?:Encoder|Decoder)?(?:Layer)?)\b)",
     "attention"},
    {R"(\b(?:LayerNorm|BatchNorm[123]d|GroupNorm|InstanceNorm[123]d|RMSNorm|layer_norm|batch_norm|group_norm|instance_norm|rms_norm|normalize|LocalResponseNorm)\b)",
     "normalization"},
    {R"(\b(?:MaxPool[123]d|AvgPool[123]d|AdaptiveAvgPool[123]d|AdaptiveMaxPool[123]d|LPPool[12]d|max_pool[123]d|avg_pool[123]d|adaptive_avg_pool[123]d|adaptive_max_pool[123]d)\b)",
     "pooling"},
    {R"(\b(?:cumsum|cumprod|cummax|cummin|logcumsumexp)\b)", "scan"},
    {R"(\b(?:relu|ReLU|gelu|GELU|silu|SiLU|sigmoid|Sigmoid|tanh|Tanh|elu|ELU|selu|SELU|leaky_relu|LeakyReLU|softplus|Softplus|softsign|Softsign|hardtanh|Hardtanh|hardsigmoid|Hardsigmoid|hardswish|Hardswish|mish|Mish|relu6|ReLU6|swish|glu|GLU)\b)",
     "activation"},
    {R"(\b(?:sum|mean|amax|amin|argmax|argmin|prod|norm|logsumexp|std|var|max|min|all|any)\s*\(\s*(?:[^()]*\bdim\b|[^()]*,)|\.(?:sum|mean|amax|amin|argmax|argmin|prod|norm|logsumexp|std|var)\()",
     "reduction"},
    {R"(\b(?:cross_entropy|CrossEntropyLoss|mse_loss|MSELoss|nll_loss|NLLLoss|kl_div|KLDivLoss|smooth_l1_loss|SmoothL1Loss|huber_loss|HuberLoss|triplet_margin_loss|TripletMarginLoss|cosine_embedding_loss|hinge_embedding_loss|HingeEmbeddingLoss|l1_loss|L1Loss|binary_cross_entropy)\b)",
     "loss"},
    {R"(\b(?:gather|scatter|scatter_add|index_select|index_add|take_along_dim|masked_select|Embedding|embedding|nonzero|where|topk|sort|argsort)\b)",
     "indexing"},
    {R"(\btorch\.(?:add|sub|mul|div|exp|log|sqrt|rsqrt|abs|clamp|pow|maximum|minimum|where|sin|cos|erf)\b|\.clamp\(|[^=!<>]\s[-+*/]\s)",
     "elementwise"},
};

QString stripCommentsAndStrings(const QString& src)
{
    static const QRegularExpression strings(
        QStringLiteral(R"((\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))"));
    static const QRegularExpression comments(QStringLiteral("#[^\n]*"));
    QString s = src;
    s.replace(strings, QStringLiteral("\"\""));
    s.replace(comments, QString());
    return s;
}

// Only the body of Model counts: get_inputs() builds tensors with torch calls that are not the task's ops.
QString modelBody(const QString& code)
{
    static const QRegularExpression start(QStringLiteral("^class\\s+Model\\b"), QRegularExpression::MultilineOption);
    const auto m = start.match(code);
    if (!m.hasMatch())
        return code;
    static const QRegularExpression next(QStringLiteral("^\\S"), QRegularExpression::MultilineOption);
    const qsizetype from = code.indexOf(QLatin1Char('\n'), m.capturedStart());
    const auto n = next.match(code, from < 0 ? code.size() : from + 1);
    return code.mid(m.capturedStart(), (n.hasMatch() ? n.capturedStart() : code.size()) - m.capturedStart());
}
}  // namespace

QStringList deriveCategories(const QString& referenceSource, int level)
{
    const QString code = modelBody(stripCommentsAndStrings(referenceSource));
    QSet<QString> found;
    for (const Rule& r : kRules) {
        static thread_local QHash<const char*, QRegularExpression> cache;
        auto it = cache.find(r.pattern);
        if (it == cache.end())
            it = cache.insert(r.pattern, QRegularExpression(QString::fromUtf8(r.pattern)));
        if (it->match(code).hasMatch())
            found.insert(QLatin1String(r.category));
    }
    if (found.contains(QStringLiteral("batched-gemm")))
        found.remove(QStringLiteral("gemm"));
    if (level == 2)
        found.insert(QStringLiteral("fused"));
    if (level >= 3)
        found.insert(QStringLiteral("model"));
    if (found.isEmpty())
        found.insert(QStringLiteral("other"));
    QStringList ordered;
    for (const QString& c : knownCategories())
        if (found.contains(c))
            ordered.append(c);
    return ordered;
}

}  // namespace km
