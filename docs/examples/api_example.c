/* placeholder until docs/api.md example lands */
int main(void) { return 0; }
