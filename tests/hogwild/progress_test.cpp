// The training progress's figures and text.
#include "hogwild/progress.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace mptrain::hogwild;

namespace {

ProgressFigures figures(std::uint64_t samples, std::uint64_t total, int epochs, double rate) {
  ProgressFigures f;
  f.samples = samples;
  f.total = total;
  f.epochs = epochs;
  f.rate = rate;
  f.loss = 0.5;
  f.verdict = "healthy";
  return f;
}

}  // namespace

TEST_CASE("the current epoch follows the share of samples done") {
  CHECK(current_epoch(figures(0, 100, 4, 0)) == 1);
  CHECK(current_epoch(figures(50, 100, 4, 0)) == 3);
  CHECK(current_epoch(figures(100, 100, 4, 0)) == 4);
  CHECK(current_epoch(figures(0, 0, 2, 0)) == 2);
}

TEST_CASE("the ETA is the time left at the rate so far, with hours from an hour") {
  CHECK(eta_text(figures(0, 100, 1, 0)).empty());
  CHECK(eta_text(figures(100, 100, 1, 10)).empty());
  CHECK(eta_text(figures(0, 650, 1, 10)) == "ETA 1:05");
  CHECK(eta_text(figures(0, 36000, 1, 10)) == "ETA 1:00:00");
}

TEST_CASE("the progress bar fits the terminal, dropping pieces as it narrows") {
  const auto f = figures(500, 1000, 2, 100);
  const std::string wide = progress_bar(f, 200);
  CHECK(wide.size() <= 199);
  CHECK(wide.find(" 50%") != std::string::npos);
  CHECK(wide.find("500/1000 samples") != std::string::npos);
  CHECK(wide.find("epoch 2/2") != std::string::npos);
  CHECK(wide.find("ETA 0:05") != std::string::npos);
  for (int columns : {100, 80, 60, 59, 20, 5}) {
    INFO(columns);
    CHECK(progress_bar(f, columns).size() <= static_cast<std::size_t>(columns - 1));
  }
  CHECK(progress_bar(f, 59) == " 50%  loss 0.5000  healthy");
}

TEST_CASE("a huge loss is written in exponent form") {
  auto f = figures(1, 2, 1, 1);
  f.loss = 123456.0;
  CHECK(progress_line(f).find("loss 1.23e+05") != std::string::npos);
}

TEST_CASE("the plain progress line says every figure") {
  CHECK(progress_line(figures(250, 1000, 1, 50)) ==
        "mptrain:  25%  epoch 1/1  250/1000 samples  50 samples/s  ETA 0:15  loss 0.5000  monitor healthy");
}

TEST_CASE("the progress figures come from the store's counters") {
  auto store = ParameterStore::create(model_layout(ModelKind::logreg), 2);
  REQUIRE(store.ok());
  store->counters(0).samples = 30;
  store->counters(1).samples = 10;
  const auto f = progress_figures(*store, 100, 3, 2.0, "healthy");
  CHECK(f.samples == 40);
  CHECK(f.total == 100);
  CHECK(f.epochs == 3);
  CHECK(f.rate == 20.0);
  CHECK(f.verdict == "healthy");
  CHECK(progress_figures(*store, 100, 3, 0.0, "").rate == 0.0);
}
