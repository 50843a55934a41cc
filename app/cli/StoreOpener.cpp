#include "cli/StoreOpener.h"

#include "store/TaskStore.h"

namespace km::cli {

StoreOpener::StoreOpener(QString given) : m_given(std::move(given)) {}

StoreOpener::~StoreOpener() = default;

TaskStore* StoreOpener::open(Io io)
{
    if (m_store)
        return m_store.get();
    const auto path = resolveStorePath(m_given);
    auto store = path ? TaskStore::open(path.value()) : Result<std::unique_ptr<TaskStore>>(path.error());
    if (!store) {
        io.err << "kmosaic: " << store.error().message << "\n";
        return nullptr;
    }
    m_store = std::move(store).value();
    return m_store.get();
}

}  // namespace km::cli
