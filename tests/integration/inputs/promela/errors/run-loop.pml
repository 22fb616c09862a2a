// error: 5:6 `run` inside a loop
proctype Q() { skip }
init {
  do
  :: run Q()
  od
}
